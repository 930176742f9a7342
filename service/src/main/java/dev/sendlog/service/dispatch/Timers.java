package dev.sendlog.service.dispatch;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import dev.sendlog.service.core.Metrics;
import com.codahale.metrics.Timer;
import dev.sendlog.events.Dead;
import dev.sendlog.events.MessageEvent;
import dev.sendlog.events.OutcomeUnknown;
import dev.sendlog.events.Redriven;
import dev.sendlog.events.StoredEvent;
import dev.sendlog.projections.Decisions;
import dev.sendlog.projections.InvalidTransitionException;
import dev.sendlog.projections.Limits;
import dev.sendlog.projections.MessageFold;
import dev.sendlog.projections.MessageState;
import dev.sendlog.service.db.EventStore;
import dev.sendlog.service.db.NewEvent;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fires the deadlines of the owned shards. The projection says which messages are due; each is folded
 * again from the log, and only if the deadline is still the latest fact (nothing newer appended) does the
 * timer append REDRIVEN, DEAD or OUTCOME_UNKNOWN, at the next seq. Losing that seq to another writer
 * means something happened: nothing to do.
 */
public final class Timers {
    private static final Logger LOG = LoggerFactory.getLogger(Timers.class);
    private static final int BATCH = 500;

    private final ShardLeases leases;
    private final DSLContext dsl;
    private final EventStore store;
    private final EventAppender appender;
    private final Limits limits;
    private final Duration reconcileWindow;
    private final InstantSource clock;
    private final Timer roundTimer;
    private final Counter redriven;
    private final Counter dead;
    private final Counter unknown;

    public Timers(ShardLeases leases, DSLContext dsl, EventStore store, EventAppender appender, Limits limits,
                  Duration reconcileWindow, InstantSource clock, MetricRegistry metrics) {
        this.leases = leases;
        this.dsl = dsl;
        this.store = store;
        this.appender = appender;
        this.limits = limits;
        this.reconcileWindow = reconcileWindow;
        this.clock = clock;
        this.roundTimer = Metrics.timer(metrics, "timers.round");
        this.redriven = metrics.counter("timers.redriven");
        this.dead = metrics.counter("messages.dead");
        this.unknown = metrics.counter("messages.unknown");
    }

    /** Fires what is due now; returns the events appended. */
    public int fire() {
        List<Short> shards = new ArrayList<>(leases.owned().keySet());
        if (shards.isEmpty()) {
            return 0;
        }
        Instant now = clock.instant();
        try (Timer.Context ignored = roundTimer.time()) {
            Map<UUID, Short> due = new HashMap<>();
            dsl.resultQuery("SELECT message_id, shard FROM message_status WHERE shard = ANY(?) AND due_at IS NOT NULL "
                            + "AND due_at <= ?::timestamptz ORDER BY due_at LIMIT " + BATCH,
                            (Object) shards.toArray(Short[]::new), now.toString())
                    .forEach(r -> due.put(r.get(0, UUID.class), r.get(1, Short.class)));
            if (due.isEmpty()) {
                return 0;
            }
            Map<UUID, List<StoredEvent>> histories = store.readMany(dsl, due.keySet());
            List<NewEvent> events = new ArrayList<>();
            for (Map.Entry<UUID, List<StoredEvent>> h : histories.entrySet()) {
                try {
                    MessageState state = MessageFold.fold(h.getValue());
                    decide(state, now).ifPresent(e -> events.add(
                            new NewEvent(state.messageId(), state.nextSeq(), due.get(state.messageId()), "timer", now, e)));
                } catch (InvalidTransitionException e) {
                    LOG.error("timer cannot fold message_id={}: {}", e.messageId(), e.getMessage());
                }
            }
            if (events.isEmpty()) {
                return 0;
            }
            var won = appender.append(events, null);
            for (NewEvent e : events) {
                if (won.contains(new dev.sendlog.service.db.AppendKey(e.messageId(), e.seq()))) {
                    count(e.event(), e.messageId());
                }
            }
            return won.size();
        }
    }

    private Optional<MessageEvent> decide(MessageState state, Instant now) {
        Optional<MessageEvent> onDeadline = Decisions.onDeadline(state, now, limits);
        if (onDeadline.isPresent()) {
            return onDeadline;
        }
        return Decisions.reconcile(state, now.minus(reconcileWindow), reconcileWindow.toString()).map(e -> e);
    }

    private void count(MessageEvent e, UUID messageId) {
        switch (e) {
            case Redriven r -> redriven.inc();
            case Dead d -> {
                dead.inc();
                LOG.warn("message dead message_id={} reason=\"{}\"", messageId, d.reason());
            }
            case OutcomeUnknown u -> {
                unknown.inc();
                LOG.info("message outcome unknown message_id={} reason=\"{}\"", messageId, u.reason());
            }
            default -> {
            }
        }
    }
}
