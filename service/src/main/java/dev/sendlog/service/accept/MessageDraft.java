package dev.sendlog.service.accept;

import dev.sendlog.events.Priority;
import java.util.Objects;

/**
 * A validated submission before it has an id.
 *
 * @param from           the sender id the client asked for, or null (the tenant's default then applies)
 * @param metadataJson   the metadata object as JSON text, or null
 * @param idempotencyKey the client's key, or null
 * @param requestHash    hash of the request's content, to tell a replay from a different request with the same key; null
 *                       without a key (nothing compares it)
 * @param validUntil     when the message must no longer leave sendlog (its validUntil, or now + ttlSeconds), or null
 * @param sendAt         when the client asked it to be sent (its sendAt), or null; one not after the acceptance means now
 * @param priority       its lane: it picks the message's shard at acceptance ({@code normal} when the client named none)
 * @param gateway        the gateway the client named, or null until {@link Routes} chose one
 * @param routed         its gateway was chosen by a route with others after it, to fail over to (issue 29)
 */
public record MessageDraft(
        String to,
        String body,
        String reference,
        String gateway,
        String from,
        String metadataJson,
        String idempotencyKey,
        byte[] requestHash,
        java.time.Instant validUntil,
        java.time.Instant sendAt,
        Priority priority,
        boolean routed) {

    public MessageDraft {
        Objects.requireNonNull(priority, "priority");
    }

    public MessageDraft(
            String to,
            String body,
            String reference,
            String gateway,
            String from,
            String metadataJson,
            String idempotencyKey,
            byte[] requestHash,
            java.time.Instant validUntil,
            java.time.Instant sendAt,
            Priority priority) {
        this(
                to,
                body,
                reference,
                gateway,
                from,
                metadataJson,
                idempotencyKey,
                requestHash,
                validUntil,
                sendAt,
                priority,
                false);
    }

    /** A normal draft to send at once (no sendAt). */
    public MessageDraft(
            String to,
            String body,
            String reference,
            String gateway,
            String from,
            String metadataJson,
            String idempotencyKey,
            byte[] requestHash,
            java.time.Instant validUntil) {
        this(
                to,
                body,
                reference,
                gateway,
                from,
                metadataJson,
                idempotencyKey,
                requestHash,
                validUntil,
                null,
                Priority.NORMAL);
    }

    /** The same draft going out as {@code sender} (the tenant's default filled in). */
    public MessageDraft withFrom(String sender) {
        return new MessageDraft(
                to,
                body,
                reference,
                gateway,
                sender,
                metadataJson,
                idempotencyKey,
                requestHash,
                validUntil,
                sendAt,
                priority,
                routed);
    }

    /** The same draft going to {@code chosen}, picked by a route ({@code routed}) or the default gateway. */
    public MessageDraft withGateway(String chosen, boolean byRoute) {
        return new MessageDraft(
                to,
                body,
                reference,
                chosen,
                from,
                metadataJson,
                idempotencyKey,
                requestHash,
                validUntil,
                sendAt,
                priority,
                byRoute);
    }
}
