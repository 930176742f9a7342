package dev.sendlog.service.dispatch;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.MetricRegistry;
import dev.sendlog.service.core.Metrics;
import com.codahale.metrics.Timer;
import dev.sendlog.events.EventCodec;
import dev.sendlog.events.EventType;
import dev.sendlog.events.Published;
import dev.sendlog.events.Redriven;
import dev.sendlog.service.config.PipelineSettings;
import dev.sendlog.service.core.FaultPoint;
import dev.sendlog.service.core.Faults;
import dev.sendlog.service.db.EventStore;
import dev.sendlog.service.db.NewEvent;
import dev.sendlog.service.queue.JobStream;
import dev.sendlog.service.queue.SendJob;
import java.sql.SQLException;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jooq.DSLContext;

/**
 * Passes work from the log to the send stream for the shards this process owns. One round: read the
 * work events past each shard's cursor (snapshot-safe), keep those still owed, publish them with one
 * pipelined round trip, then in one transaction append their PUBLISHED events and advance the cursors
 * (fenced by the lease epoch). The cursor moves only after both. It drains: rounds follow each other
 * while a page comes back full, up to a cap, and only an empty tail makes it wait.
 */
public final class Poller {
    private final ShardLeases leases;
    private final LogTail tail;
    private final DSLContext dsl;
    private final EventStore store;
    private final EventCodec codec;
    private final JobStream stream;
    private final PipelineSettings settings;
    private final InstantSource clock;
    private final String actor;
    private final Faults faults;
    private final Timer claimTimer;
    private final Timer publishTimer;
    private final Timer appendTimer;
    private final Histogram eventsPerBatch;
    private final Counter published;
    private final Counter skipped;

    public Poller(ShardLeases leases, LogTail tail, DSLContext dsl, EventStore store, JobStream stream,
                  PipelineSettings settings, InstantSource clock, String actor, Faults faults, MetricRegistry metrics) {
        this.faults = faults;
        this.leases = leases;
        this.tail = tail;
        this.dsl = dsl;
        this.store = store;
        this.codec = store.codec();
        this.stream = stream;
        this.settings = settings;
        this.clock = clock;
        this.actor = actor;
        this.claimTimer = Metrics.timer(metrics, "poller.claim");
        this.publishTimer = Metrics.timer(metrics, "poller.publish");
        this.appendTimer = Metrics.timer(metrics, "poller.append");
        this.eventsPerBatch = Metrics.histogram(metrics, "poller.events.per.batch");
        this.published = metrics.counter("poller.published");
        this.skipped = metrics.counter("poller.skipped.already.handled");
    }

    /** What one batch did: events read, and whether some shard's page came back full (more is waiting). */
    public record Batch(int read, int published, boolean full, boolean backpressure) {
        static final Batch EMPTY = new Batch(0, 0, false, false);
    }

    public Batch batch() throws SQLException {
        Map<Short, ShardLease> owned = leases.owned();
        if (owned.isEmpty()) {
            return Batch.EMPTY;
        }
        List<Short> shards = new ArrayList<>(owned.keySet());
        List<TailCursor> cursors = shards.stream().map(s -> owned.get(s).publishCursor()).toList();
        int perShard = Math.max(50, settings.pollBatchSize / shards.size());

        List<TailRow> rows;
        try (Timer.Context ignored = claimTimer.time()) {
            rows = tail.work(shards, cursors, perShard);
        }
        if (rows.isEmpty()) {
            return Batch.EMPTY;
        }
        if (stream.length() >= settings.maxStreamEntries) {
            return new Batch(rows.size(), 0, true, true);
        }
        Map<UUID, Integer> latest = latestSeqs(rows);
        Instant now = clock.instant();
        List<SendJob> jobs = new ArrayList<>();
        List<NewEvent> publishedEvents = new ArrayList<>();
        Map<Short, TailCursor> advanced = new LinkedHashMap<>();
        Map<Short, Integer> perShardCount = new HashMap<>();
        for (TailRow row : rows) {
            advanced.put(row.shard(), row.cursor());
            perShardCount.merge(row.shard(), 1, Integer::sum);
            if (!Integer.valueOf(row.seq()).equals(latest.get(row.messageId()))) {
                skipped.inc();
                continue;
            }
            ShardLease lease = owned.get(row.shard());
            int attempt = attemptOf(row);
            jobs.add(new SendJob(row.messageId(), attempt, row.shard(), lease.epoch(), now.toEpochMilli()));
            publishedEvents.add(new NewEvent(row.messageId(), row.seq() + 1, row.shard(), actor, now,
                    new Published(attempt, lease.epoch(), now.plusMillis(settings.confirmTimeout.toMilliseconds()))));
        }
        try (Timer.Context ignored = publishTimer.time()) {
            stream.publish(jobs.stream().map(SendJob::toFields).toList());
        }
        faults.at(FaultPoint.BETWEEN_PUBLISH_AND_APPEND);
        try (Timer.Context ignored = appendTimer.time()) {
            dsl.transaction(cfg -> {
                leases.boundLockHold(cfg.dsl());
                store.append(cfg.dsl(), publishedEvents);
                for (Map.Entry<Short, TailCursor> e : advanced.entrySet()) {
                    ShardLeases.writePublishCursor(cfg.dsl(), leases.owner(), owned.get(e.getKey()), e.getValue());
                }
            });
        }
        advanced.forEach((shard, cursor) -> leases.advanced(shard, cursor, null));
        eventsPerBatch.update(rows.size());
        published.inc(jobs.size());
        boolean full = perShardCount.values().stream().anyMatch(n -> n >= perShard);
        return new Batch(rows.size(), jobs.size(), full, false);
    }

    private int attemptOf(TailRow row) {
        if (row.type().equals(EventType.ACCEPTED.name())) {
            return 1;
        }
        Redriven redriven = (Redriven) codec.decode(row.messageId(), EventType.REDRIVEN, row.version(), row.data());
        return redriven.attempt();
    }

    /** The latest seq of each message: a work event is still owed only while nothing came after it. */
    private Map<UUID, Integer> latestSeqs(List<TailRow> rows) {
        UUID[] ids = rows.stream().map(TailRow::messageId).distinct().toArray(UUID[]::new);
        Map<UUID, Integer> latest = new HashMap<>();
        dsl.resultQuery("SELECT message_id, max(seq) FROM message_events WHERE message_id = ANY(?) GROUP BY message_id",
                (Object) ids).forEach(r -> latest.put(r.get(0, UUID.class), r.get(1, Integer.class)));
        return latest;
    }
}
