package dev.sendlog.service.timers;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import dev.sendlog.events.Expired;
import dev.sendlog.events.MessageEvent;
import dev.sendlog.events.Redriven;
import dev.sendlog.projections.Decisions;
import dev.sendlog.projections.Limits;
import dev.sendlog.projections.MessageState;
import dev.sendlog.projections.Phase;
import dev.sendlog.service.log.EventStore;
import dev.sendlog.service.log.MessageDetails;
import dev.sendlog.service.log.MessageReader;
import dev.sendlog.service.log.NewEvent;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings scheduled messages (issue 26) to the send stream when their time comes. It reads the due head of the
 * {@code scheduled} table (one row per message still waiting, due at the earlier of its sendAt and its validity's end)
 * through its primary key, never the messages, and for each due message, in one transaction:
 * <ul>
 * <li>still SCHEDULED and its sendAt has come: appends REDRIVEN with reason DUE (attempt 1) at the expected seq, which
 *     the poller publishes like any redrive;</li>
 * <li>still SCHEDULED and its validity ended first: appends EXPIRED (final, never submitted, never charged);</li>
 * <li>already moved on (cancelled while it waited): appends nothing;</li>
 * </ul>
 * and deletes the rows it handled. The rows are locked {@code FOR UPDATE SKIP LOCKED}, so processes scanning at once
 * take different ones. A cancel racing the scan for the same seq makes the append's INSERT fail: the transaction rolls
 * back, the rows stay, and the next round finds the message CANCELLED and only deletes its row. So a message is either
 * cancelled and never published, or made due and then no longer cancellable once a worker claims it.
 */
final class DueScan {
    private static final Logger LOG = LoggerFactory.getLogger(DueScan.class);
    private static final String ACTOR = "timer";
    /** Due rows per transaction: each is one message folded and at most one event appended. */
    static final int PER_ROUND = 200;

    private static final String TAKE_SQL = """
            SELECT due_at, message_id FROM scheduled WHERE due_at <= ?::timestamptz
            ORDER BY due_at LIMIT ? FOR UPDATE SKIP LOCKED""";
    private static final String DELETE_SQL = """
            DELETE FROM scheduled s USING unnest(?::text[], ?::uuid[]) AS d(at, id)
            WHERE s.due_at = d.at::timestamptz AND s.message_id = d.id""";

    private final EventStore store;
    private final DSLContext dsl;
    private final Limits limits;
    private final Counter due;
    private final Counter expired;
    private final Counter lostRaces;

    DueScan(MessageReader reader, Limits limits, MetricRegistry metrics) {
        this.store = reader.events();
        this.dsl = reader.dsl();
        this.limits = limits;
        this.due = metrics.counter("scheduled.due");
        this.expired = metrics.counter("messages.expired");
        this.lostRaces = metrics.counter("scheduled.lost.races");
    }

    /** Handles some of the scheduled messages due at {@code now}; true when more may be waiting. */
    boolean round(Instant now) {
        try {
            return dsl.transactionResult(cfg -> inTransaction(cfg.dsl(), now));
        } catch (RuntimeException e) {
            if (EventStore.isSeqTaken(e)) {
                // Something else (a cancel) was appended meanwhile: the rows stay, the next round folds it again.
                lostRaces.inc();
                return false;
            }
            throw e;
        }
    }

    private boolean inTransaction(DSLContext tx, Instant now) {
        Map<UUID, String> taken = new LinkedHashMap<>();
        tx.resultQuery(TAKE_SQL, now.toString(), PER_ROUND)
                .forEach(r -> taken.put(
                        r.get(1, UUID.class),
                        r.get(0, OffsetDateTime.class).toInstant().toString()));
        if (taken.isEmpty()) {
            return false;
        }
        // Read on the transaction's own connection: one connection per round, whatever the pool's size.
        Map<UUID, MessageDetails> found = new MessageReader(tx, store).findMany(taken.keySet());
        List<NewEvent> events = new ArrayList<>();
        List<UUID> handled = new ArrayList<>();
        for (UUID id : taken.keySet()) {
            MessageDetails d = found.get(id);
            if (d == null) {
                LOG.error("a scheduled row names a message that does not exist message_id={}", id);
                handled.add(id);
                continue;
            }
            MessageState s = d.state();
            if (s.phase() != Phase.SCHEDULED) {
                handled.add(id); // cancelled (or expired) while it waited: nothing to bring
                continue;
            }
            Optional<MessageEvent> fire = Decisions.onDeadline(s, d.row().validUntil(), now, limits);
            if (fire.isEmpty()) {
                continue; // not due by the fold (a clock between processes behind): the row stays for a later round
            }
            NewEvent event = new NewEvent(id, s.nextSeq(), d.row().shard(), ACTOR, now, fire.get())
                    .deciding(s, d.row().tenant());
            events.add(event);
            handled.add(id);
        }
        store.append(tx, events);
        if (!handled.isEmpty()) {
            String[] at = handled.stream().map(taken::get).toArray(String[]::new);
            tx.execute(DELETE_SQL, at, handled.toArray(UUID[]::new));
        }
        for (NewEvent e : events) {
            switch (e.event()) {
                case Redriven r -> due.inc();
                case Expired x -> {
                    expired.inc();
                    LOG.info("scheduled message expired before its time message_id={}", e.messageId());
                }
                default -> {}
            }
        }
        return taken.size() == PER_ROUND;
    }
}
