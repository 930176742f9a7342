package dev.sendlog.service.db;

import dev.sendlog.events.FinalStatus;
import dev.sendlog.events.MessageEvent;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * An event to append at {@code seq}, which must be the message's next seq for the append to win.
 *
 * @param publication the publication the row names (a claim's, or a publish timeout's), shown as PUBLISHED before it
 * @param finalStatus the status this event makes final, written with it for search by status (with {@code tenant});
 *                    null when the event leaves the message in flight or in the final status it already had
 */
public record NewEvent(UUID messageId, int seq, short shard, String actor, Instant at, MessageEvent event,
                       Long publication, FinalStatus finalStatus, String tenant) {
    public NewEvent {
        Objects.requireNonNull(messageId, "messageId");
        Objects.requireNonNull(event, "event");
        if (finalStatus != null && tenant == null) {
            throw new IllegalArgumentException("a final status is written with its tenant");
        }
    }

    public NewEvent(UUID messageId, int seq, short shard, String actor, Instant at, MessageEvent event) {
        this(messageId, seq, shard, actor, at, event, null, null, null);
    }

    public NewEvent withPublication(Long id) {
        return new NewEvent(messageId, seq, shard, actor, at, event, id, finalStatus, tenant);
    }

    public NewEvent withFinal(FinalStatus status, String tenantOfMessage) {
        return new NewEvent(messageId, seq, shard, actor, at, event, publication, status, tenantOfMessage);
    }

    public AppendKey key() {
        return new AppendKey(messageId, seq);
    }
}
