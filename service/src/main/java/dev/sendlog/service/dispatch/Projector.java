package dev.sendlog.service.dispatch;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.MetricRegistry;
import dev.sendlog.service.core.Metrics;
import com.codahale.metrics.Timer;
import dev.sendlog.events.Accepted;
import dev.sendlog.events.EventCodec;
import dev.sendlog.events.EventType;
import dev.sendlog.events.StoredEvent;
import dev.sendlog.projections.InvalidTransitionException;
import dev.sendlog.projections.MessageFold;
import dev.sendlog.projections.MessageState;
import dev.sendlog.service.core.MessageDetails;
import dev.sendlog.service.core.MessageReader;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the status projection of the owned shards: tails every event past the projector's cursor
 * (snapshot-safe), folds the new events onto each message's state, and writes one row per message with the
 * cursor advance (fenced) in one transaction. Off every hot path; its lag is a metric.
 *
 * <p>States of recently seen messages are kept in a bounded cache, so a message's next events are folded onto
 * it without reading its history again (the tail gives each message's events in seq order: a later seq is
 * written by a transaction that read the earlier one committed). A new message starts from its ACCEPTED event (the
 * whole history at seq 1) without a read; a message not cached whose row is past seq 1, or one whose next event
 * does not follow the cached seq, is read whole from the log.
 */
public final class Projector {
    private static final Logger LOG = LoggerFactory.getLogger(Projector.class);
    private static final int CACHE_MESSAGES = 200_000;

    private final ShardLeases leases;
    private final LogTail tail;
    private final DSLContext dsl;
    private final MessageReader reader;
    private final EventCodec codec;
    private final Duration reconcileWindow;
    private final int batchSize;
    private final Timer batchTimer;
    private final Histogram messagesPerBatch;
    private final Counter invalid;
    private final Counter cacheMisses;
    private final Map<UUID, Cached> cache = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<UUID, Cached> eldest) {
            return size() > CACHE_MESSAGES;
        }
    };

    private record Cached(String tenant, MessageState state) {
    }

    public Projector(ShardLeases leases, LogTail tail, DSLContext dsl, MessageReader reader, EventCodec codec,
                     Duration reconcileWindow, int batchSize, MetricRegistry metrics) {
        this.leases = leases;
        this.tail = tail;
        this.dsl = dsl;
        this.reader = reader;
        this.codec = codec;
        this.reconcileWindow = reconcileWindow;
        this.batchSize = batchSize;
        this.batchTimer = Metrics.timer(metrics, "projector.batch");
        this.messagesPerBatch = Metrics.histogram(metrics, "projector.messages.per.batch");
        this.invalid = metrics.counter("projector.invalid.histories");
        this.cacheMisses = metrics.counter("projector.cache.misses");
    }

    /** Projects one batch; true when some shard's page came back full (more is waiting). */
    public synchronized boolean batch() throws SQLException {
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
            Map<Short, Integer> counts = new HashMap<>();
            Map<UUID, Short> touched = new LinkedHashMap<>();
            Set<UUID> reread = new LinkedHashSet<>();
            for (TailRow r : rows) {
                advanced.put(r.shard(), r.cursor());
                counts.merge(r.shard(), 1, Integer::sum);
                touched.put(r.messageId(), r.shard());
                if (!reread.contains(r.messageId()) && !foldCached(r)) {
                    reread.add(r.messageId());
                }
            }
            readWhole(reread);
            List<StatusRow> statuses = new ArrayList<>(touched.size());
            touched.forEach((id, shard) -> {
                Cached c = cache.get(id);
                if (c != null) {
                    statuses.add(StatusRow.of(c.tenant(), shard, c.state(), reconcileWindow));
                }
            });
            dsl.transaction(cfg -> {
                leases.boundLockHold(cfg.dsl());
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

    /** Folds the row onto the cached state; false when the message must be read whole instead. */
    private boolean foldCached(TailRow r) {
        Cached c = cache.get(r.messageId());
        if (c == null) {
            return r.seq() == 1 && startFromAccepted(r);
        }
        if (r.seq() <= c.state().seq()) {
            return true;
        }
        if (r.seq() != c.state().seq() + 1 || r.type().equals(EventType.COMPACTED.name())) {
            return false;
        }
        try {
            cache.put(r.messageId(), new Cached(c.tenant(), MessageFold.evolve(c.state(), stored(r))));
            return true;
        } catch (InvalidTransitionException e) {
            return false;
        }
    }

    /**
     * A message's first event is its whole history so far, so a new message needs no read: its state is the fold of
     * its ACCEPTED event, which names the tenant. False for anything else at seq 1 (read whole, and judged there).
     */
    private boolean startFromAccepted(TailRow r) {
        if (!r.type().equals(EventType.ACCEPTED.name())) {
            return false;
        }
        try {
            StoredEvent event = stored(r);
            if (!(event.event() instanceof Accepted accepted)) {
                return false;
            }
            cache.put(r.messageId(), new Cached(accepted.tenant(), MessageFold.fold(List.of(event))));
            return true;
        } catch (RuntimeException e) {
            // Undecodable or refused by the fold: the whole-history read reports it the one way it is reported.
            return false;
        }
    }

    private StoredEvent stored(TailRow r) {
        return new StoredEvent(r.messageId(), r.seq(), r.at(), r.actor(),
                codec.decode(r.messageId(), EventType.valueOf(r.type()), r.version(), r.data()));
    }

    private void readWhole(Set<UUID> ids) {
        if (ids.isEmpty()) {
            return;
        }
        cacheMisses.inc(ids.size());
        Map<UUID, MessageDetails> found;
        try {
            found = reader.findMany(ids);
        } catch (InvalidTransitionException e) {
            // One history the fold refuses must not stop the others: read them one by one.
            found = new HashMap<>();
            for (UUID id : ids) {
                try {
                    reader.find(id).ifPresent(d -> cache.put(id, new Cached(d.row().tenant(), d.state())));
                } catch (InvalidTransitionException one) {
                    // A history the fold refuses is a bug or corruption: loud, counted, and not papered over.
                    invalid.inc();
                    cache.remove(id);
                    LOG.error("projector cannot fold message_id={} seq={}: {}", one.messageId(), one.seq(), one.getMessage());
                }
            }
            return;
        }
        for (UUID id : ids) {
            MessageDetails d = found.get(id);
            if (d == null) {
                invalid.inc();
                cache.remove(id);
                LOG.error("projector found events without their message message_id={}", id);
            } else {
                cache.put(id, new Cached(d.row().tenant(), d.state()));
            }
        }
    }

    /** Forgets cached states (after a rebuild, or when a shard changes hands). */
    public synchronized void forget() {
        cache.clear();
    }
}
