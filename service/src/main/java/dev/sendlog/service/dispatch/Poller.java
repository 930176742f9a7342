package dev.sendlog.service.dispatch;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.MetricRegistry;
import dev.sendlog.service.core.Metrics;
import com.codahale.metrics.Timer;
import dev.sendlog.service.config.PipelineSettings;
import dev.sendlog.service.core.Faults;
import dev.sendlog.log.Actors;
import dev.sendlog.service.queue.JobStream;
import java.sql.SQLException;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jooq.DSLContext;

/**
 * Passes work from the log to the send stream for the shards this process owns. One round: read the
 * work past each shard's cursor (snapshot-safe: new messages and REDRIVEN events), keep what is still owed, publish it
 * with one pipelined round trip, and in one transaction record the publication and advance the cursors (fenced by the
 * lease epoch); that transaction commits only once the publish has answered, so the cursor moves only after both. It drains: rounds follow each other
 * while a page comes back full, up to a cap, and only an empty tail makes it wait.
 */
public final class Poller {
    private final ShardLeases leases;
    private final LogTail tail;
    private final WorkPublisher publisher;
    private final PipelineSettings settings;
    private final DSLContext dsl;
    private final Timer claimTimer;
    private final Histogram eventsPerBatch;
    private final Counter backpressureWaits;
    /** The last batch found the send stream full: the next one asks the stream before it reads the tail. */
    private boolean backpressured;

    public Poller(ShardLeases leases, LogTail tail, DSLContext dsl, Actors actors, JobStream stream,
                  PipelineSettings settings, InstantSource clock, String actor, Faults faults, MetricRegistry metrics) {
        this.leases = leases;
        this.tail = tail;
        this.publisher = new WorkPublisher(dsl, actors, stream, settings, clock, actor, faults, false, metrics);
        this.settings = settings;
        this.dsl = dsl;
        this.claimTimer = Metrics.timer(metrics, "poller.claim");
        this.eventsPerBatch = Metrics.histogram(metrics, "poller.events.per.batch");
        this.backpressureWaits = metrics.counter("poller.backpressure.waits");
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
        // While the stream stays full, a read of the tail would fetch a page only to drop it: measured at C=16 in
        // scripts/bench (pg_stat_statements), such reads returned 4 of every 5 tail rows the poller read. So after a
        // batch that met a full stream, the stream's length (one Redis round trip) is asked first; otherwise the tail
        // is read first, and an idle poller costs no Redis call.
        if (backpressured && publisher.streamFull()) {
            backpressureWaits.inc();
            return new Batch(0, 0, true, true);
        }
        List<TailRow> rows;
        try (Timer.Context ignored = claimTimer.time()) {
            rows = tail.work(shards, cursors, perShard);
        }
        if (rows.isEmpty()) {
            backpressured = false;
            return Batch.EMPTY;
        }
        backpressured = publisher.streamFull();
        if (backpressured) {
            backpressureWaits.inc();
            return new Batch(rows.size(), 0, true, true);
        }
        Map<Short, TailCursor> advanced = new LinkedHashMap<>();
        Map<Short, Integer> perShardCount = new HashMap<>();
        for (TailRow row : rows) {
            advanced.put(row.shard(), row.cursor());
            perShardCount.merge(row.shard(), 1, Integer::sum);
        }
        int published = publisher.publish(rows, shard -> owned.get(shard).epoch(), tx -> {
            leases.boundLockHold(tx);
            for (Map.Entry<Short, TailCursor> e : advanced.entrySet()) {
                ShardLeases.writePublishCursor(tx, leases.owner(), owned.get(e.getKey()), e.getValue());
            }
        });
        advanced.forEach(leases::advanced);
        eventsPerBatch.update(rows.size());
        boolean full = perShardCount.values().stream().anyMatch(n -> n >= perShard);
        return new Batch(rows.size(), published, full, false);
    }

    /**
     * With the change-data-capture feed, the feed publishes and this only keeps each owned shard's publish cursor
     * honest: it moves past the work already handled (a publication names it, or a later event exists) and stops at the
     * first one still owed. So the {@code pollers} health check's "oldest unpublished work event" means the same in
     * both modes, and switching back to polling starts from there. Returns the number of shards whose cursor moved.
     */
    public int follow() throws SQLException {
        Map<Short, ShardLease> owned = leases.owned();
        if (owned.isEmpty()) {
            return 0;
        }
        List<Short> shards = new ArrayList<>(owned.keySet());
        List<TailCursor> cursors = shards.stream().map(s -> owned.get(s).publishCursor()).toList();
        int perShard = Math.max(50, settings.pollBatchSize / shards.size());
        List<TailRow> rows = tail.work(shards, cursors, perShard);
        if (rows.isEmpty()) {
            return 0;
        }
        Map<java.util.UUID, Integer> latest = publisher.latestSeqs(rows);
        java.util.Set<String> published = publisher.publishedSince(rows);
        Map<Short, TailCursor> advanced = new LinkedHashMap<>();
        java.util.Set<Short> blocked = new java.util.HashSet<>();
        for (TailRow row : rows) {
            if (blocked.contains(row.shard())) {
                continue;
            }
            boolean handled = row.scheduled() || published.contains(row.messageId() + "/" + row.seq())
                    || latest.getOrDefault(row.messageId(), row.seq()) > row.seq();
            if (handled) {
                advanced.put(row.shard(), row.cursor());
            } else {
                blocked.add(row.shard()); // still owed: the cursor stays before it
            }
        }
        if (advanced.isEmpty()) {
            return 0;
        }
        dsl.transaction(cfg -> {
            leases.boundLockHold(cfg.dsl());
            for (Map.Entry<Short, TailCursor> e : advanced.entrySet()) {
                ShardLeases.writePublishCursor(cfg.dsl(), leases.owner(), owned.get(e.getKey()), e.getValue());
            }
        });
        advanced.forEach(leases::advanced);
        return advanced.size();
    }
}
