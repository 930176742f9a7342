package dev.sendlog.service.publish;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import dev.sendlog.events.Lanes;
import dev.sendlog.log.Actors;
import dev.sendlog.service.config.PipelineSettings;
import dev.sendlog.service.faults.FaultPoint;
import dev.sendlog.service.faults.Faults;
import dev.sendlog.service.log.IdBlocks;
import dev.sendlog.service.log.Publications;
import dev.sendlog.service.metrics.Metrics;
import dev.sendlog.service.queue.JobStream;
import dev.sendlog.service.queue.SendJob;
import dev.sendlog.service.send.SendStreams;
import dev.sendlog.service.stats.Tallies;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;
import org.jooq.DSLContext;

/**
 * The part of publishing both feeds share (the polling tail and change data capture): of the work read, keep what is
 * still owed (nothing came after it in its message's log), put it on the send stream with one pipelined round trip,
 * and record the batch as one publication row in one transaction together with whatever the feed records there (the
 * polling feed's fenced cursors); the transaction commits only once the publish has answered. The feed's own position
 * (cursor or slot) moves only after both.
 *
 * <p>One row per batch, however many messages: the message ids, the work event each was published for, and its shard's
 * epoch. A claim names the publication (the history shows it as PUBLISHED), and the timers watch the publication's
 * messages from its confirm deadline on (see {@link PublicationChecker}).
 */
public final class WorkPublisher {
    private final Tallies tallies;
    private final DSLContext dsl;
    private final boolean checkVisibility;
    private final SendStreams streams;
    private final java.util.Set<Lanes.Lane> lanesPublished;
    private final PipelineSettings settings;
    private final InstantSource clock;
    private final String actor;
    private final Actors actors;
    private final IdBlocks publicationIds;
    private final Faults faults;
    private final Timer publishTimer;
    private final Timer appendTimer;
    private final Timer publishRoundTrip;
    private final Counter published;
    private final Counter skipped;

    /**
     * @param lanesPublished  the lanes whose work this publisher puts on their streams; rows of other lanes are passed
     *                        over (the change-data-capture feed leaves the high lane to the polling tail, see
     *                        {@link ShardOwner})
     * @param checkVisibility whether the rows may not be visible to this session yet (they come from a replication
     *                        slot): then each message's row is read too, and a batch with one not visible is refused
     * @param tallies         counts the messages published (the console's pipeline view)
     */
    public WorkPublisher(
            DSLContext dsl,
            Actors actors,
            SendStreams streams,
            java.util.Set<Lanes.Lane> lanesPublished,
            PipelineSettings settings,
            InstantSource clock,
            String actor,
            Faults faults,
            boolean checkVisibility,
            MetricRegistry metrics,
            Tallies tallies) {
        this.tallies = tallies;
        this.dsl = dsl;
        this.checkVisibility = checkVisibility;
        this.actors = actors;
        this.streams = streams;
        this.lanesPublished = java.util.Set.copyOf(lanesPublished);
        this.settings = settings;
        this.clock = clock;
        this.actor = actor;
        this.faults = faults;
        this.publicationIds = new IdBlocks(dsl, "publications_id_seq", 64);
        this.publishTimer = Metrics.timer(metrics, "poller.publish");
        this.appendTimer = Metrics.timer(metrics, "poller.append");
        this.publishRoundTrip = Metrics.timer(metrics, "poller.publish.round.trip");
        this.published = metrics.counter("poller.published");
        this.skipped = metrics.counter("poller.skipped.already.handled");
    }

    /** Some rows' transaction has committed but is not visible to this session yet; nothing was published. */
    static final class NotVisibleYet extends RuntimeException {
        NotVisibleYet() {
            super("committed work not visible yet", null, false, false);
        }
    }

    /** Whether the lane's send stream is at its bound: then none of its work is published until workers catch up. */
    Lanes lanes() {
        return streams.lanes();
    }

    boolean streamFull(Lanes.Lane lane) {
        return room(lane) <= 0;
    }

    /** How many more entries the lane's send stream may take before its bound ({@code maxStreamEntries}). */
    long room(Lanes.Lane lane) {
        return settings.maxStreamEntries - streams.of(lane).length();
    }

    /** The lane a row's work belongs to (its shard's). */
    Lanes.Lane laneOf(TailRow row) {
        return streams.lanes().laneOf(row.shard());
    }

    /**
     * Publishes the owed work among {@code rows}; {@code epochOf} gives the epoch of each row's shard,
     * {@code alsoInTransaction} runs in the transaction that records the publication. Returns how many were published.
     */
    public int publish(List<TailRow> rows, ToLongFunction<Short> epochOf, Consumer<DSLContext> alsoInTransaction) {
        // A scheduled message's row is no work until it is due (its REDRIVEN DUE is): it is only moved past.
        if (rows.isEmpty()) {
            return 0;
        }
        Map<UUID, Integer> latest = latestSeqs(rows);
        if (rows.stream().anyMatch(r -> !visible(latest, r))) {
            // Read from the slot but not yet visible here: the walsender can send a transaction as soon as its commit
            // record is flushed, a moment before the committing backend makes it visible. That holds for a REDRIVEN
            // row of a message whose earlier events are visible as much as for a new message: its latest visible seq
            // is then lower than the row's. Skipping it as "handled" would lose it (the slot moves past it, and no
            // timer re-drives work that is waiting to be published); the caller asks again in a moment.
            throw new NotVisibleYet();
        }
        Instant now = clock.instant();
        Instant confirmBy = now.plusMillis(settings.confirmTimeout.toMilliseconds());
        // Rows from a slot may have been published already: by the catch-up of a new slot, which reads the log while
        // the slot streams what commits meanwhile. (The polling feed's cursor moves with its publications: never
        // twice.)
        java.util.Set<String> alreadyPublished = checkVisibility ? publishedSince(rows) : java.util.Set.of();
        List<TailRow> owed = new ArrayList<>();
        for (TailRow row : rows) {
            if (!row.scheduled()
                    && lanesPublished.contains(laneOf(row))
                    && Integer.valueOf(row.seq()).equals(latest.get(row.messageId()))
                    && !alreadyPublished.contains(row.messageId() + "/" + row.seq())) {
                owed.add(row);
            } else {
                skipped.inc();
            }
        }
        long publication = owed.isEmpty() ? 0 : publicationIds.next();
        List<SendJob> jobs = new ArrayList<>(owed.size());
        Map<Lanes.Lane, List<Map<String, String>>> perLane = new java.util.LinkedHashMap<>();
        UUID[] ids = new UUID[owed.size()];
        Integer[] seqs = new Integer[owed.size()];
        Long[] epochs = new Long[owed.size()];
        for (int i = 0; i < owed.size(); i++) {
            TailRow row = owed.get(i);
            long epoch = epochOf.applyAsLong(row.shard());
            SendJob job = new SendJob(
                    row.messageId(), row.attempt(), row.shard(), epoch, now.toEpochMilli(), row.seq(), publication);
            jobs.add(job);
            perLane.computeIfAbsent(laneOf(row), lane -> new ArrayList<>()).add(job.toFields());
            ids[i] = row.messageId();
            seqs[i] = row.seq();
            epochs[i] = epoch;
        }
        // The publish is sent first and its answer awaited inside the transaction, after the publication row and the
        // feed's position are written and before the commit: the two round trips overlap, and still nothing is
        // committed (cursor, slot, publication) unless every job is on the stream. A publish that fails or times out
        // rolls the transaction back, and the rows are read and published again (a worker that got a job of the
        // rolled-back publication finds no such publication and leaves the job, see SendWorker).
        long started = System.nanoTime();
        List<JobStream.Publishing> sending = new ArrayList<>(perLane.size());
        perLane.forEach((lane, fields) -> sending.add(streams.of(lane).publishStart(fields)));
        long sent = System.nanoTime();
        long[] waited = new long[1];
        int actorId = owed.isEmpty() ? 0 : actors.id(actor);
        dsl.transaction(cfg -> {
            alsoInTransaction.accept(cfg.dsl());
            if (!owed.isEmpty()) {
                Publications.record(cfg.dsl(), publication, now, confirmBy, actorId, ids, seqs, epochs);
            }
            long waitFrom = System.nanoTime();
            try {
                sending.forEach(JobStream.Publishing::await);
            } finally {
                waited[0] = System.nanoTime() - waitFrom;
                publishRoundTrip.update(System.nanoTime() - started, TimeUnit.NANOSECONDS);
            }
            faults.at(FaultPoint.BETWEEN_PUBLISH_AND_APPEND);
        });
        long ended = System.nanoTime();
        publishTimer.update(sent - started + waited[0], TimeUnit.NANOSECONDS);
        appendTimer.update(ended - sent - waited[0], TimeUnit.NANOSECONDS);
        published.inc(jobs.size());
        tallies.add(Tallies.Kind.PUBLISHED, null, null, jobs.size());
        return jobs.size();
    }

    /** Whether this session sees the row itself: its message's latest visible seq is at least the row's. */
    private static boolean visible(Map<UUID, Integer> latest, TailRow row) {
        Integer seq = latest.get(row.messageId());
        return seq != null && seq >= row.seq();
    }

    /**
     * The latest seq of each message whose row this session sees (the slot's rows may not be visible yet). A scheduled
     * message's latest is at least 2, its SCHEDULED (the row's send_at, shown at seq 2): the slot does not carry send_at,
     * so its acceptance read from the slot is then no longer owed work, and is skipped like any handled row.
     */
    private static final String LATEST_VISIBLE_SQL = """
            SELECT m.id, greatest(coalesce(max(e.seq), 1), CASE WHEN m.send_at > m.accepted_at THEN 2 ELSE 1 END)
            FROM messages m LEFT JOIN message_events e ON e.message_id = m.id AND e.message_id = ANY(?)
            WHERE m.id = ANY(?)
            GROUP BY m.id, m.send_at, m.accepted_at""";
    /** The latest event row of each message (the tail read the rows in this session: they are visible). */
    private static final String LATEST_SQL = """
            SELECT message_id, max(seq) FROM message_events WHERE message_id = ANY(?) GROUP BY message_id""";

    /**
     * The latest seq of each visible message (1 when it has no event row: its acceptance is the row): a work event is
     * still owed only while nothing came after it. A message absent from the answer is not visible yet: only rows
     * read from a replication slot can be that; rows the tail read are visible, and their messages rows need no read.
     */
    Map<UUID, Integer> latestSeqs(List<TailRow> rows) {
        UUID[] ids = rows.stream().map(TailRow::messageId).distinct().toArray(UUID[]::new);
        Map<UUID, Integer> latest = new HashMap<>();
        if (!checkVisibility) {
            for (UUID id : ids) {
                latest.put(id, 1);
            }
        }
        // Plain JDBC: once per poller batch, and jOOQ's plain-SQL path cost more CPU than the query (JFR, C=16).
        String sql = checkVisibility ? LATEST_VISIBLE_SQL : LATEST_SQL;
        dsl.connection(c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                java.sql.Array array = c.createArrayOf("uuid", ids);
                ps.setArray(1, array);
                if (checkVisibility) {
                    ps.setArray(2, array);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        latest.put(rs.getObject(1, UUID.class), rs.getInt(2));
                    }
                }
            }
        });
        return latest;
    }

    /**
     * Which of the rows' work (message/seq) a publication names already: the publications made since the oldest row was
     * written (a minute earlier, for the clocks of other processes), read through their index by time.
     */
    java.util.Set<String> publishedSince(List<TailRow> rows) {
        Instant from = rows.stream()
                .map(TailRow::at)
                .min(java.util.Comparator.naturalOrder())
                .orElseThrow()
                .minusSeconds(60);
        UUID[] ids = rows.stream().map(TailRow::messageId).distinct().toArray(UUID[]::new);
        java.util.Set<String> published = new java.util.HashSet<>();
        dsl.resultQuery("""
                        SELECT u.message_id, u.seq FROM publications p CROSS JOIN unnest(p.message_ids, p.seqs) AS u(message_id, seq)
                        WHERE p.published_at >= ?::timestamptz AND u.message_id = ANY(?)""", from.toString(), ids)
                .forEach(r -> published.add(r.get(0, UUID.class) + "/" + r.get(1, Integer.class)));
        return published;
    }
}
