package dev.sendlog.service.api;

import java.time.Instant;

/** A listed recipient (API.md): why, since when, and who listed it (shown to a client by role only: ActorNames). */
public record SuppressionView(String recipient, String reason, Instant since, String actor) {}
