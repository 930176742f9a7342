package dev.sendlog.service.api;

import java.time.Instant;
import java.util.UUID;

/** The 202 body: the message is committed and will reach the provider. */
public record SubmitResponse(UUID id, String status, Instant acceptedAt) {}
