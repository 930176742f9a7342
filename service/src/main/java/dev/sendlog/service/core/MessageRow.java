package dev.sendlog.service.core;

import java.time.Instant;
import java.util.UUID;

/**
 * The immutable facts of a message, as the API wrote them. {@code validUntil}: when it must no longer leave sendlog,
 * or null.
 */
public record MessageRow(UUID id, String tenant, String recipient, String reference, String gateway, String body,
                         Instant acceptedAt, String sender, Instant validUntil) {
}
