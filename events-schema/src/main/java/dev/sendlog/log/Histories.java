package dev.sendlog.log;

import dev.sendlog.events.Accepted;
import dev.sendlog.events.Compacted;
import dev.sendlog.events.EventType;
import dev.sendlog.events.MessageEvent;
import dev.sendlog.events.Published;
import dev.sendlog.events.Redriven;
import dev.sendlog.events.RowCodec;
import dev.sendlog.events.Scheduled;
import dev.sendlog.events.StoredEvent;
import dev.sendlog.events.UnreadableEventException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A message's history as every reader shows it: the messages row as ACCEPTED (seq 1), the rows of message_events in
 * seq order (typed, or legacy JSON upcast by the codec), and before a row that names its publication, that
 * publication as PUBLISHED (at the seq the work event left for it). A COMPACTED snapshot, or a legacy ACCEPTED row,
 * already holds the acceptance.
 */
public final class Histories {
    /** Who the messages row says accepted a message. */
    public static final String ACCEPTED_BY = "api";

    private final RowCodec codec;

    public Histories(RowCodec codec) {
        this.codec = codec;
    }

    public RowCodec codec() {
        return codec;
    }

    /** The ACCEPTED event a messages row stands for. */
    public static StoredEvent accepted(UUID messageId, String tenant, String gateway, Instant acceptedAt) {
        return new StoredEvent(messageId, 1, acceptedAt, ACCEPTED_BY, new Accepted(tenant, gateway));
    }

    /**
     * Whether a messages row's {@code send_at} makes the message wait (issue 26): only one after its acceptance. A
     * {@code sendAt} already past when the message was accepted means "now" (API.md): it is kept on the row as the client
     * sent it, and the message is sent at once.
     */
    public static boolean isScheduled(Instant sendAt, Instant acceptedAt) {
        return sendAt != null && sendAt.isAfter(acceptedAt);
    }

    /**
     * The history of one message from its row's facts and its event rows in seq order; {@code sendAt} is the row's
     * send_at (null when none): a scheduled message shows SCHEDULED at seq 2, from the row as ACCEPTED is.
     */
    public List<StoredEvent> assemble(
            UUID messageId, String tenant, String gateway, Instant acceptedAt, Instant sendAt, List<LoggedRow> rows) {
        List<StoredEvent> history = new ArrayList<>(rows.size() + 3);
        boolean acceptanceStored = !rows.isEmpty()
                && (rows.getFirst().seq() == 1
                        || EventType.COMPACTED.name().equals(rows.getFirst().legacyType())
                        || (rows.getFirst().typed() != null
                                && rows.getFirst().typed().type() == EventType.COMPACTED));
        if (!acceptanceStored) {
            history.add(accepted(messageId, tenant, gateway, acceptedAt));
            if (isScheduled(sendAt, acceptedAt)) {
                history.add(new StoredEvent(messageId, 2, acceptedAt, ACCEPTED_BY, new Scheduled(sendAt)));
            }
        }
        int owedAttempt = acceptanceStored ? 0 : 1;
        for (LoggedRow row : rows) {
            StoredEvent event = event(row);
            PublicationRef p = row.publication();
            int lastSeq = history.isEmpty() ? 0 : history.getLast().seq();
            if (p != null && lastSeq == row.seq() - 2 && owedAttempt > 0) {
                history.add(new StoredEvent(
                        messageId,
                        row.seq() - 1,
                        p.publishedAt(),
                        p.actor(),
                        new Published(owedAttempt, p.epoch(), p.confirmBy(), p.id())));
            }
            history.add(event);
            owedAttempt = owedAfter(owedAttempt, event.event());
        }
        return history;
    }

    /** The event of one row. */
    public StoredEvent event(LoggedRow row) {
        if (row.isLegacy()) {
            EventType type = legacyType(row);
            return new StoredEvent(
                    row.messageId(),
                    row.seq(),
                    row.at(),
                    row.legacyActor(),
                    codec.codec().decode(row.messageId(), type, row.legacyVersion(), row.legacyData()));
        }
        return new StoredEvent(row.messageId(), row.seq(), row.at(), row.typed().actor(), codec.fromRow(row.typed()));
    }

    private static EventType legacyType(LoggedRow row) {
        try {
            return EventType.valueOf(row.legacyType());
        } catch (IllegalArgumentException e) {
            throw new UnreadableEventException(
                    "event of " + row.messageId() + " at seq " + row.seq() + " has unknown type " + row.legacyType(),
                    e);
        }
    }

    /** The attempt the latest work event owes: what a publication after it put on the stream. */
    private static int owedAfter(int owed, MessageEvent e) {
        return switch (e) {
            case Accepted a -> 1;
            case Redriven r -> r.attempt();
            case Compacted c -> {
                int inner = owed;
                for (StoredEvent folded : c.events()) {
                    inner = owedAfter(inner, folded.event());
                }
                yield inner;
            }
            default -> owed;
        };
    }
}
