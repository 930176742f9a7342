package dev.sendlog.service.api;

import java.time.Instant;

/** One recorded change of a recipient's suppression: ADD or REMOVE, why (null on a REMOVE given none), who, when. */
public record SuppressionChangeView(String action, String reason, String actor, Instant at) {}
