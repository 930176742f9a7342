package dev.sendlog.service.log;

import java.time.Instant;
import java.util.UUID;

/**
 * The immutable facts of a message, as the API wrote them. {@code validUntil}: when it must no longer leave sendlog,
 * or null; {@code sendAt}: when the client asked it to be sent, or null (scheduled only when after the acceptance).
 * {@code shard}: chosen at acceptance by its priority ({@code dev.sendlog.events.Lanes}), and the shard of every event
 * it gets after, so work redriven later (a retry, a scheduled send come due) stays in its lane.
 * {@code gateway}: the gateway it was accepted for; a failover may have moved it since (its state's gateway says where
 * it is now). {@code routed}: a route with more gateways chose it, so it may fail over along that route (issue 29).
 */
public record MessageRow(
        UUID id,
        String tenant,
        String recipient,
        String reference,
        String gateway,
        String body,
        Instant acceptedAt,
        String sender,
        Instant validUntil,
        Instant sendAt,
        short shard,
        boolean routed) {}
