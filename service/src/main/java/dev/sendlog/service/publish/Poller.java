package dev.sendlog.service.publish;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import dev.sendlog.events.Lanes;
import dev.sendlog.log.Actors;
import dev.sendlog.service.config.PipelineSettings;
import dev.sendlog.service.faults.Faults;
import dev.sendlog.service.metrics.Metrics;
import dev.sendlog.service.send.SendStreams;
import dev.sendlog.service.stats.Tallies;
import java.sql.SQLException;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jooq.DSLContext;

/**
 * Passes work from the log to the send stream for the shards this process owns. One round: read the
 * work past each shard's cursor (snapshot-safe: new messages and REDRIVEN events), keep what is still owed, publish it
 * with one pipelined round trip, and in one transaction record the publication and advance the cursors (fenced by the
 * lease epoch); that transaction commits only once the publish has answered, so the cursor moves only after both. It drains: rounds follow each other
 * while a page comes back full, up to a cap, and only an empty tail makes it wait.
 *
 * <p>Each priority lane has its own shards and its own send stream: a lane whose stream is at its bound is left out of
 * the reads until its workers make room, and the other lane's work is read and published meanwhile.
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
    /** Tail rows read only to be left because their lane's stream was full: the waste the length check avoids. */
    private final Counter droppedRows;

    private final Lanes lanes;
    private final Set<Lanes.Lane> polled;
    /** The lanes whose stream the last batch found full: the next one asks their stream before it reads their tail. */
    private final Set<Lanes.Lane> backpressured = new java.util.HashSet<>();
    /**
     * Whether this poller publishes committed work past the snapshot fence (the high lane's alone, see
     * {@link LogTail#workAhead}); its cursors still move only over fenced rows.
     */
    private final boolean readAhead;

    private final HighWorkSignal signal;
    /** When a read last found work (System.nanoTime), or when this poller started: the quiet cadence counts from it. */
    private volatile long lastWorkNanos = System.nanoTime();
    /** Whether the last wait was a quiet one (the gauge {@code poller.<lane>.quiet}). */
    private volatile boolean quiet;
    /**
     * The work (message/seq) published ahead of the fence, and its shard: skipped when read again, forgotten once the
     * cursor has passed it (or the shard has moved). Another poller taking the shard may publish it again: a second
     * job for the same work finds it claimed and is acknowledged as stale.
     */
    private final Map<String, Short> publishedAhead = new HashMap<>();

    /**
     * @param polled  the lanes whose work this poller publishes (one each, on a thread of its own): with the
     *                change-data-capture feed every lane but the normal one, whose work the slot publishes (its slot is
     *                one ordered stream that a full normal stream holds back; {@link #follow} keeps the normal cursors)
     * @param signal  what wakes this poller when its tail is empty; null: it reads again after {@code idlePollMs}
     * @param tallies counts the messages published (the console's pipeline view)
     */
    public Poller(
            ShardLeases leases,
            LogTail tail,
            DSLContext dsl,
            Actors actors,
            SendStreams streams,
            Set<Lanes.Lane> polled,
            PipelineSettings settings,
            InstantSource clock,
            String actor,
            Faults faults,
            MetricRegistry metrics,
            HighWorkSignal signal,
            Tallies tallies) {
        this.signal = signal;
        this.leases = leases;
        this.tail = tail;
        this.lanes = streams.lanes();
        this.polled = Set.copyOf(polled);
        // The high lane is a trickle beside the normal one: re-reading its few rows past the fence costs little, and
        // its latency must not be the oldest open transaction's age (the normal lane's full-rate commits). A tenant
        // lane may itself be a flood, so it waits for the fence like the normal lane.
        this.readAhead = this.polled.equals(Set.of(streams.lanes().high()));
        this.publisher = new WorkPublisher(
                dsl, actors, streams, polled, settings, clock, actor, faults, false, metrics, tallies);
        this.settings = settings;
        this.dsl = dsl;
        this.claimTimer = Metrics.timer(metrics, "poller.claim");
        this.eventsPerBatch = Metrics.histogram(metrics, "poller.events.per.batch");
        this.backpressureWaits = metrics.counter("poller.backpressure.waits");
        this.droppedRows = metrics.counter("poller.rows.read.for.a.full.stream");
        String quietGauge = name().replace('-', '.') + ".quiet";
        metrics.remove(quietGauge);
        metrics.gauge(quietGauge, () -> () -> quiet ? 1 : 0);
    }

    /**
     * Waits, after a batch found nothing, until work may be there: a notification, or {@code idlePollMs}; after a second
     * with nothing found, {@code quietPollMs}. An idle server and its PostgreSQL backends took 0.098 CPU s per second
     * reading every 20 ms, 0.055 with the quiet cadence, the mutable outbox 0.014 ({@code scripts/bench-idle}).
     */
    public void awaitWork() throws InterruptedException {
        if (signal != null) {
            signal.await();
            return;
        }
        quiet = System.nanoTime() - lastWorkNanos > TimeUnit.MILLISECONDS.toNanos(PipelineSettings.QUIET_AFTER_MS);
        Thread.sleep(quiet ? Math.max(settings.idlePollMs, settings.quietPollMs) : settings.idlePollMs);
    }

    /** The name of this poller's thread: {@code poller-high}, {@code poller-normal}, or {@code poller} for several lanes. */
    public String name() {
        return polled.size() == 1 ? "poller-" + polled.iterator().next().name() : "poller";
    }

    /**
     * What one batch did: events read and published, whether some shard's page came back full (more is waiting), and
     * whether every lane this poller publishes is held back by its full stream (then the owner waits longer).
     */
    public record Batch(int read, int published, boolean full, boolean backpressure) {
        static final Batch EMPTY = new Batch(0, 0, false, false);
    }

    public Batch batch() throws SQLException {
        Map<Short, ShardLease> owned = leases.owned();
        if (owned.isEmpty()) {
            return Batch.EMPTY;
        }
        // While a lane's stream stays full, a read of its shards' tail would fetch a page only to drop it: measured at
        // C=16 in scripts/bench (pg_stat_statements), such reads returned 4 of every 5 tail rows the poller read. So
        // after a batch that met a lane's full stream, that stream's length (one Redis round trip) is asked first and
        // the lane's shards are left out while it is full; otherwise the tail is read first, and an idle poller costs
        // no Redis call. The other lane goes on: a normal backlog at its bound never holds high work back.
        Set<Lanes.Lane> open = new java.util.HashSet<>();
        for (Lanes.Lane lane : polled) {
            if (backpressured.contains(lane) && publisher.streamFull(lane)) {
                backpressureWaits.inc();
            } else {
                open.add(lane);
            }
        }
        boolean allFull = open.isEmpty();
        List<Short> shards = owned.keySet().stream()
                .filter(s -> open.contains(lanes.laneOf(s)))
                .toList();
        if (shards.isEmpty()) {
            return new Batch(0, 0, allFull, allFull);
        }
        List<TailCursor> cursors =
                shards.stream().map(s -> owned.get(s).publishCursor()).toList();
        int perShard = Math.max(50, settings.pollBatchSize / shards.size());
        List<TailRow> read;
        LogTail.Ahead ahead = null;
        try (Timer.Context ignored = claimTimer.time()) {
            if (readAhead) {
                ahead = tail.workAhead(shards, cursors, perShard);
                read = ahead.rows();
            } else {
                read = tail.work(shards, cursors, perShard);
            }
        }
        backpressured.removeAll(open);
        if (read.isEmpty()) {
            return Batch.EMPTY;
        }
        lastWorkNanos = System.nanoTime();
        quiet = false;
        Set<Lanes.Lane> full = new java.util.HashSet<>();
        for (Lanes.Lane lane : open) {
            if (read.stream().anyMatch(r -> lanes.laneOf(r.shard()).equals(lane)) && publisher.streamFull(lane)) {
                full.add(lane);
            }
        }
        backpressured.addAll(full);
        if (!full.isEmpty()) {
            backpressureWaits.inc();
        }
        List<TailRow> rows = full.isEmpty()
                ? read
                : read.stream()
                        .filter(r -> !full.contains(lanes.laneOf(r.shard())))
                        .toList();
        droppedRows.inc(read.size() - rows.size());
        if (rows.isEmpty()) {
            boolean nothingOpen = full.containsAll(open);
            return new Batch(read.size(), 0, nothingOpen, nothingOpen);
        }
        Map<Short, TailCursor> advanced = new LinkedHashMap<>();
        Map<Short, Integer> perShardCount = new HashMap<>();
        List<TailRow> toPublish = new ArrayList<>(rows.size());
        for (TailRow row : rows) {
            // A cursor moves only over fenced rows: past the fence, an open transaction may still commit before them.
            if (ahead == null || ahead.fenced(row)) {
                advanced.put(row.shard(), row.cursor());
            }
            if (!publishedAhead.containsKey(key(row))) {
                toPublish.add(row);
                perShardCount.merge(row.shard(), 1, Integer::sum);
            }
        }
        Consumer<DSLContext> cursorWrites = tx -> {
            leases.boundLockHold(tx);
            ShardLeases.writePublishCursors(tx, leases.owner(), byLease(owned, advanced));
        };
        int published = 0;
        if (!toPublish.isEmpty()) {
            published = publisher.publish(toPublish, shard -> owned.get(shard).epoch(), cursorWrites);
        } else if (!advanced.isEmpty()) {
            dsl.transaction(cfg -> cursorWrites.accept(cfg.dsl())); // only rows published ahead, now behind the fence
        }
        advanced.forEach(leases::advanced);
        if (ahead != null) {
            // Published past the fence: remembered until the cursor passes them, so they are not published again.
            for (TailRow row : rows) {
                if (ahead.fenced(row)) {
                    publishedAhead.remove(key(row));
                } else {
                    publishedAhead.put(key(row), row.shard());
                }
            }
            publishedAhead.values().removeIf(shard -> !owned.containsKey(shard));
        }
        eventsPerBatch.update(toPublish.size());
        boolean pageFull = perShardCount.values().stream().anyMatch(n -> n >= perShard);
        return new Batch(read.size(), published, pageFull, false);
    }

    private static Map<ShardLease, TailCursor> byLease(Map<Short, ShardLease> owned, Map<Short, TailCursor> advanced) {
        Map<ShardLease, TailCursor> cursors = new LinkedHashMap<>();
        advanced.forEach((shard, cursor) -> cursors.put(owned.get(shard), cursor));
        return cursors;
    }

    private static String key(TailRow row) {
        return row.messageId() + "/" + row.seq();
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
        // The normal lane's shards, whose work comes from the slot (every other lane is polled).
        List<Short> shards = owned.keySet().stream()
                .filter(s -> lanes.laneOf(s).equals(lanes.normal()) && !polled.contains(lanes.normal()))
                .toList();
        if (shards.isEmpty()) {
            return 0;
        }
        List<TailCursor> cursors =
                shards.stream().map(s -> owned.get(s).publishCursor()).toList();
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
            boolean handled = row.scheduled()
                    || published.contains(row.messageId() + "/" + row.seq())
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
            ShardLeases.writePublishCursors(cfg.dsl(), leases.owner(), byLease(owned, advanced));
        });
        advanced.forEach(leases::advanced);
        return advanced.size();
    }
}
