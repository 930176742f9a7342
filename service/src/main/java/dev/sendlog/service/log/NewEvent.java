package dev.sendlog.service.log;

import dev.sendlog.events.FinalStatus;
import dev.sendlog.events.MessageEvent;
import dev.sendlog.events.StoredEvent;
import dev.sendlog.projections.MessageFold;
import dev.sendlog.projections.MessageState;
import dev.sendlog.projections.MessageStatus;
import dev.sendlog.projections.Phase;
import dev.sendlog.service.stats.Tallies;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * An event to append at {@code seq}, which must be the message's next seq for the append to win.
 *
 * @param publication the publication the row names (a claim's, or a publish timeout's), shown as PUBLISHED before it
 * @param finalStatus the status this event makes final, written with it for search by status (with {@code tenant});
 *                    null when the event leaves the message in flight or in the final status it already had
 * @param statusAfter the status this event moves the message to, when it changes it (null otherwise): a status webhook
 *                    delivery is owed for it, in the same statement, if the tenant's registration asks for that status
 * @param gateway     the message's gateway after this event, known when {@code statusAfter} is (the console's counts
 *                    per gateway); not stored in the row
 */
public record NewEvent(
        UUID messageId,
        int seq,
        short shard,
        String actor,
        Instant at,
        MessageEvent event,
        Long publication,
        FinalStatus finalStatus,
        String tenant,
        MessageStatus statusAfter,
        String gateway)
        implements Tallies.Change {
    public NewEvent {
        Objects.requireNonNull(messageId, "messageId");
        Objects.requireNonNull(event, "event");
        if ((finalStatus != null || statusAfter != null) && tenant == null) {
            throw new IllegalArgumentException("a final status or a status change is written with its tenant");
        }
    }

    public NewEvent(UUID messageId, int seq, short shard, String actor, Instant at, MessageEvent event) {
        this(messageId, seq, shard, actor, at, event, null, null, null, null, null);
    }

    public NewEvent(
            UUID messageId,
            int seq,
            short shard,
            String actor,
            Instant at,
            MessageEvent event,
            Long publication,
            FinalStatus finalStatus,
            String tenant,
            MessageStatus statusAfter) {
        this(messageId, seq, shard, actor, at, event, publication, finalStatus, tenant, statusAfter, null);
    }

    public NewEvent withPublication(Long id) {
        return new NewEvent(messageId, seq, shard, actor, at, event, id, finalStatus, tenant, statusAfter, gateway);
    }

    public NewEvent withFinal(FinalStatus status, String tenantOfMessage) {
        return new NewEvent(
                messageId, seq, shard, actor, at, event, publication, status, tenantOfMessage, statusAfter, gateway);
    }

    /**
     * This event with what it does to its message, folded from {@code before} (the state its seq was taken from): the
     * status it moves the message to when that changes (for status webhooks) and, when that status is final, the final
     * status (for search by status). An event that leaves the status as it was carries neither.
     */
    public NewEvent deciding(MessageState before, String tenantOfMessage) {
        MessageState next = MessageFold.evolve(before, stored());
        MessageStatus after = next.status();
        if (before.phase() != Phase.NONE && before.status() == after) {
            return this;
        }
        FinalStatus ends = after.isFinal() ? FinalStatus.ofName(after.name()) : finalStatus;
        return new NewEvent(
                messageId, seq, shard, actor, at, event, publication, ends, tenantOfMessage, after, next.gateway());
    }

    /** The event as the log will hold it. */
    public StoredEvent stored() {
        return new StoredEvent(messageId, seq, at, actor, event);
    }

    public AppendKey key() {
        return new AppendKey(messageId, seq);
    }
}
