package dev.sendlog.service.core;

import java.time.Instant;
import java.util.UUID;

/**
 * The immutable facts of a message, as the API wrote them. {@code validUntil}: when it must no longer leave sendlog,
 * or null; {@code sendAt}: when the client asked it to be sent, or null (scheduled only when after the acceptance).
 */
public record MessageRow(UUID id, String tenant, String recipient, String reference, String gateway, String body,
                         Instant acceptedAt, String sender, Instant validUntil, Instant sendAt) {
}
