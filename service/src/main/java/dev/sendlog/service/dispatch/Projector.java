package dev.sendlog.service.dispatch;

import static dev.sendlog.schema.jooq.Tables.MESSAGES;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import dev.sendlog.events.StoredEvent;
import dev.sendlog.projections.InvalidTransitionException;
import dev.sendlog.projections.MessageFold;
import dev.sendlog.projections.MessageState;
import dev.sendlog.service.core.MessageRow;
import dev.sendlog.service.db.EventStore;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the status projection of the owned shards: tails every event past the projector's cursor
 * (snapshot-safe), folds the whole history of each message it touched, and writes one row per message
 * with the cursor advance (fenced) in one transaction. Off every hot path; its lag is a metric.
 */
public final class Projector {
    private static final Logger LOG = LoggerFactory.getLogger(Projector.class);

    private final ShardLeases leases;
    private final LogTail tail;
    private final DSLContext dsl;
    private final EventStore store;
    private final Duration reconcileWindow;
    private final int batchSize;
    private final Timer batchTimer;
    private final Histogram messagesPerBatch;
    private final Counter invalid;

    public Projector(ShardLeases leases, LogTail tail, DSLContext dsl, EventStore store, Duration reconcileWindow,
                     int batchSize, MetricRegistry metrics) {
        this.leases = leases;
        this.tail = tail;
        this.dsl = dsl;
        this.store = store;
        this.reconcileWindow = reconcileWindow;
        this.batchSize = batchSize;
        this.batchTimer = metrics.timer("projector.batch");
        this.messagesPerBatch = metrics.histogram("projector.messages.per.batch");
        this.invalid = metrics.counter("projector.invalid.histories");
    }

    /** Projects one batch; true when some shard's page came back full (more is waiting). */
    public boolean batch() throws SQLException {
        Map<Short, ShardLease> owned = leases.owned();
        if (owned.isEmpty()) {
            return false;
        }
        List<Short> shards = new ArrayList<>(owned.keySet());
        List<TailCursor> cursors = shards.stream().map(s -> owned.get(s).projectCursor()).toList();
        int perShard = Math.max(100, batchSize / shards.size());
        try (Timer.Context ignored = batchTimer.time()) {
            List<TailRow> rows = tail.all(shards, cursors, perShard);
            if (rows.isEmpty()) {
                return false;
            }
            Map<Short, TailCursor> advanced = new LinkedHashMap<>();
            Map<UUID, Short> touched = new LinkedHashMap<>();
            Map<Short, Integer> counts = new HashMap<>();
            for (TailRow r : rows) {
                advanced.put(r.shard(), r.cursor());
                touched.put(r.messageId(), r.shard());
                counts.merge(r.shard(), 1, Integer::sum);
            }
            List<StatusRow> statuses = fold(touched);
            dsl.transaction(cfg -> {
                StatusProjection.upsert(cfg.dsl(), statuses);
                for (Map.Entry<Short, TailCursor> e : advanced.entrySet()) {
                    ShardLeases.writeProjectCursor(cfg.dsl(), leases.owner(), owned.get(e.getKey()), e.getValue());
                }
            });
            advanced.forEach((shard, cursor) -> leases.advanced(shard, null, cursor));
            messagesPerBatch.update(statuses.size());
            return counts.values().stream().anyMatch(n -> n >= perShard);
        }
    }

    private List<StatusRow> fold(Map<UUID, Short> touched) {
        Map<UUID, List<StoredEvent>> histories = store.readMany(dsl, touched.keySet());
        Map<UUID, MessageRow> messages = new HashMap<>();
        dsl.selectFrom(MESSAGES).where(MESSAGES.ID.in(touched.keySet())).fetch().forEach(r -> messages.put(r.getId(),
                new MessageRow(r.getId(), r.getTenant(), r.getRecipient(), r.getReference(), r.getGateway(), r.getBody(),
                        r.getAcceptedAt())));
        List<StatusRow> rows = new ArrayList<>(touched.size());
        for (Map.Entry<UUID, Short> e : touched.entrySet()) {
            List<StoredEvent> history = histories.get(e.getKey());
            MessageRow message = messages.get(e.getKey());
            if (history == null || message == null) {
                invalid.inc();
                LOG.error("projector found events without their message message_id={}", e.getKey());
                continue;
            }
            try {
                MessageState state = MessageFold.fold(history);
                rows.add(StatusRow.of(message, e.getValue(), state, reconcileWindow));
            } catch (InvalidTransitionException ex) {
                // A history the fold refuses is a bug or corruption: loud, counted, and not papered over.
                invalid.inc();
                LOG.error("projector cannot fold message_id={} seq={}: {}", ex.messageId(), ex.seq(), ex.getMessage());
            }
        }
        return rows;
    }
}
