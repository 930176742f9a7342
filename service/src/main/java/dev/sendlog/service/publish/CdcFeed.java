package dev.sendlog.service.publish;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.MetricRegistry;
import dev.sendlog.service.config.PipelineSettings;
import dev.sendlog.service.db.DatabaseTarget;
import dev.sendlog.service.metrics.Metrics;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.jooq.DSLContext;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;
import org.postgresql.util.PSQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The change-data-capture feed: the poller's second way to learn of work (DESIGN.md, "Scaling"). It reads the inserts
 * of work from a logical replication slot ({@code pgoutput}, a publication on messages and on the REDRIVEN rows of
 * message_events, with {@code publish_via_partition_root}), publishes them with the same {@link WorkPublisher} as the
 * polling feed, and only after their publication committed confirms the slot up to the last whole transaction
 * handled: a crash replays from there rather than skipping. The slot is read in commit order, so an event committed late is simply read
 * late (invariant 12 holds without a snapshot-safe cursor).
 *
 * <p>One process reads the slot at a time: PostgreSQL lets one replication connection use a slot, and only that
 * connection can move the slot's position; that is the fence. Every poller process runs a feed; the others retry
 * every third of the lease time. A holder that dies lets go at once (its connection closes); one that freezes is cut
 * off by the server after {@code wal_sender_timeout}, set to the lease time on the feed's connection. Each take
 * increments the slot's epoch, recorded in the publications the holder writes.
 *
 * <p>A new slot replays nothing committed before it existed, so whoever takes a slot not yet caught up first
 * publishes every work event still owed (the catch-up), then marks it caught up.
 *
 * <p>It publishes the normal lane only: the high lane's shards are polled (see {@link ShardOwner}), because the slot is
 * one ordered stream that waits while the normal stream is at its bound, and high work must not wait behind that.
 */
public final class CdcFeed {
    private static final Logger LOG = LoggerFactory.getLogger(CdcFeed.class);
    private static final String OBJECT_IN_USE = "55006";
    private static final String DUPLICATE_OBJECT = "42710";
    private static final int CATCH_UP_PAGE = 1000;
    /** What the publication's row filter keeps of message_events; checked here too, for a server without the filter. */
    private static final String REDRIVEN_CODE = Short.toString(dev.sendlog.events.EventType.REDRIVEN.code());

    /**
     * Work still owed: messages with nothing after their acceptance (no event past seq 1: a row written before the lean
     * log may be its ACCEPTED), and REDRIVEN events with nothing after them, unless a publication already put them on
     * the stream (a publication watches its work until it moves on, so those are the ones a publication still watches).
     */
    private static final String OWED_WORK_SQL = """
            WITH watched AS MATERIALIZED (
                SELECT u.message_id, u.seq FROM publications p CROSS JOIN unnest(p.message_ids, p.seqs) AS u(message_id, seq)
                WHERE p.check_at IS NOT NULL)
            SELECT w.shard, w.message_id, w.seq, w.xid, w.position, w.attempt, w.at FROM (
                SELECT m.shard, m.id AS message_id, 1 AS seq, m.xid, m.position, 1 AS attempt, m.accepted_at AS at
                FROM messages m
                WHERE NOT EXISTS (SELECT 1 FROM message_events n WHERE n.message_id = m.id AND n.seq > 1)
                  AND NOT coalesce(m.send_at > m.accepted_at, false) -- scheduled: the due scan's, not owed yet
                UNION ALL
                SELECT e.shard, e.message_id, e.seq, e.xid, e.position, e.attempt, e.at
                FROM message_events e
                WHERE {work}
                  AND NOT EXISTS (SELECT 1 FROM message_events n WHERE n.message_id = e.message_id AND n.seq > e.seq)
            ) w
            WHERE (w.message_id, w.seq) > (?::uuid, ?::int)
              AND NOT EXISTS (SELECT 1 FROM watched d WHERE d.message_id = w.message_id AND d.seq = w.seq)
            ORDER BY w.message_id, w.seq
            LIMIT ?""".replace("{work}", dev.sendlog.events.LogPredicates.WORK);

    private final DatabaseTarget target;
    private final DSLContext dsl;
    private final FeedSlot slot;
    private final WorkPublisher publisher;
    private final PipelineSettings.CdcSettings settings;
    private final String actor;
    private final Duration leaseTtl;
    private final Histogram rowsPerBatch;
    private final Counter takes;
    private final Counter caughtUp;
    private final Counter notVisibleYet;
    private volatile boolean holding;
    private volatile Connection connection;

    public CdcFeed(
            DatabaseTarget target,
            DSLContext dsl,
            FeedSlot slot,
            WorkPublisher publisher,
            PipelineSettings.CdcSettings settings,
            String actor,
            Duration leaseTtl,
            MetricRegistry metrics) {
        this.target = target;
        this.dsl = dsl;
        this.slot = slot;
        this.publisher = publisher;
        this.settings = settings;
        this.actor = actor;
        this.leaseTtl = leaseTtl;
        this.rowsPerBatch = Metrics.histogram(metrics, "cdc.rows.per.batch");
        this.takes = metrics.counter("cdc.slot.takes");
        this.caughtUp = metrics.counter("cdc.catch.up.published");
        this.notVisibleYet = metrics.counter("cdc.rows.not.visible.yet");
        metrics.registerGauge("cdc.slot.held", () -> holding ? 1 : 0);
    }

    /** Whether this process reads the slot now. */
    public boolean holding() {
        return holding;
    }

    /** Runs until {@code running} turns false: takes the slot when it is free, reads it, reconnects after failures. */
    public void run(BooleanSupplier running) {
        long failurePauseMs = 100;
        while (running.getAsBoolean()) {
            try {
                read(running);
                failurePauseMs = 100;
            } catch (Exception e) {
                if (!running.getAsBoolean()) {
                    break;
                }
                if (e instanceof PSQLException p && OBJECT_IN_USE.equals(p.getSQLState())) {
                    // another process reads the slot: try again in a while
                    pause(leaseTtl.toMillis() / 3);
                    continue;
                }
                LOG.warn(
                        "cdc feed failed; reconnecting in {} ms (the slot replays from its confirmed position): {}",
                        failurePauseMs,
                        e.toString());
                pause(failurePauseMs);
                failurePauseMs = Math.min(5_000, failurePauseMs * 2);
            } finally {
                holding = false;
                closeConnection();
            }
        }
    }

    /** Ends the replication connection, so a read blocked on it returns at once (at shutdown). */
    public void close() {
        closeConnection();
    }

    private void read(BooleanSupplier running) throws Exception {
        Connection c = connect();
        connection = c;
        PGConnection pg = c.unwrap(PGConnection.class);
        if (!slot.exists()) {
            if (slot.markNotCaughtUp()) {
                LOG.warn(
                        "replication slot {} was taken before and is gone (dropped, or a standby was promoted: slots "
                                + "are not copied); creating it again, and publishing every work event still owed from "
                                + "the log first",
                        slot.name());
            }
            try {
                pg.getReplicationAPI()
                        .createReplicationSlot()
                        .logical()
                        .withSlotName(slot.name())
                        .withOutputPlugin("pgoutput")
                        .make();
                LOG.info("created replication slot {}", slot.name());
            } catch (PSQLException e) {
                if (!DUPLICATE_OBJECT.equals(e.getSQLState())) {
                    throw e;
                }
            }
        }
        PGReplicationStream stream = pg.getReplicationAPI()
                .replicationStream()
                .logical()
                .withSlotName(slot.name())
                .withSlotOption("proto_version", 1)
                .withSlotOption("publication_names", slot.publication())
                .withStatusInterval((int) Math.max(1, leaseTtl.toMillis() / 3), TimeUnit.MILLISECONDS)
                // Never let the driver confirm on its own. Its automatic flush moves the position to the server's on a
                // keepalive whenever the last message read starts below what was confirmed, and the rows of a
                // transaction that began before the previous one committed do: it could confirm a transaction whose
                // rows were read but not yet published.
                .withAutomaticFlush(false)
                .start();
        FeedSlot.Taken taken = slot.take(actor);
        holding = true;
        takes.inc();
        LOG.info("cdc feed took slot={} epoch={} owner={}", slot.name(), taken.epoch(), actor);
        if (!taken.caughtUp()) {
            if (!catchUp(running, taken.epoch(), stream)) {
                return; // stopped while the stream was full: the next holder catches up from the start
            }
            slot.markCaughtUp();
        }
        stream(running, stream, taken.epoch());
    }

    /** The stream proper: gather whole transactions while more is waiting, publish, then confirm. */
    private void stream(BooleanSupplier running, PGReplicationStream stream, long epoch) throws Exception {
        PgOutput decoder = new PgOutput();
        List<TailRow> rows = new ArrayList<>();
        boolean inTransaction = false;
        LogSequenceNumber lastCommitEnd = null;
        while (running.getAsBoolean()) {
            // Blocking read while nothing is gathered or a transaction is half read; otherwise only what has arrived.
            ByteBuffer buffer = rows.isEmpty() || inTransaction ? stream.read() : stream.readPending();
            if (buffer == null) {
                publish(running, stream, rows, epoch, lastCommitEnd);
                continue;
            }
            switch (decoder.decode(buffer)) {
                case PgOutput.Begin b -> inTransaction = true;
                case PgOutput.Insert insert -> {
                    if (insert.table().endsWith(".messages")) {
                        rows.add(acceptedRow(insert.values()));
                    } else if (REDRIVEN_CODE.equals(insert.values().get("type"))) {
                        rows.add(redrivenRow(insert.values()));
                    }
                }
                case PgOutput.Commit commit -> {
                    inTransaction = false;
                    lastCommitEnd = LogSequenceNumber.valueOf(commit.endLsn());
                    if (rows.isEmpty()) {
                        confirm(stream, lastCommitEnd);
                    } else if (rows.size() >= settings.maxBatch) {
                        publish(running, stream, rows, epoch, lastCommitEnd);
                    }
                }
                case PgOutput.Ignored ignored -> {}
            }
        }
    }

    private void publish(
            BooleanSupplier running, PGReplicationStream stream, List<TailRow> rows, long epoch, LogSequenceNumber upTo)
            throws SQLException {
        while (publisher.streamFull(publisher.lanes().normal()) && running.getAsBoolean()) {
            stream.forceUpdateStatus(); // keeps the server from timing the connection out while workers catch up
            pause(200);
        }
        if (!running.getAsBoolean()) {
            return;
        }
        publishWhenVisible(rows, epoch);
        rowsPerBatch.update(rows.size());
        rows.clear();
        confirm(stream, upTo);
    }

    /**
     * Publishes once every row's transaction is visible to the pool's sessions (a moment after the slot sent it),
     * asking again every millisecond or two for up to ten seconds; past that the feed reconnects and the slot replays.
     */
    private void publishWhenVisible(List<TailRow> rows, long epoch) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                publisher.publish(rows, shard -> epoch, tx -> {});
                return;
            } catch (WorkPublisher.NotVisibleYet e) {
                notVisibleYet.inc();
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("rows read from the slot stayed invisible for 10 s", e);
                }
                pause(2);
            }
        }
    }

    private static void confirm(PGReplicationStream stream, LogSequenceNumber upTo) throws SQLException {
        stream.setAppliedLSN(upTo);
        stream.setFlushedLSN(upTo);
        stream.forceUpdateStatus();
    }

    /**
     * Publishes every work event still owed, page by page; events the slot also delivers are skipped there. A page is
     * no larger than the room left on the send stream, and while the stream is at its bound nothing is published
     * (as the polling feed and the slot's stream hold back): a backlog of millions waits in the log, not in Redis.
     * Returns false when stopped before the end.
     */
    private boolean catchUp(BooleanSupplier running, long epoch, PGReplicationStream stream) throws SQLException {
        UUID afterId = new UUID(0, 0);
        int afterSeq = 0;
        long total = 0;
        while (true) {
            long room;
            while ((room = publisher.room(publisher.lanes().normal())) <= 0) {
                if (!running.getAsBoolean()) {
                    return false;
                }
                stream.forceUpdateStatus(); // keeps the server from timing the connection out while workers catch up
                pause(200);
            }
            List<TailRow> page = new ArrayList<>();
            dsl.resultQuery(OWED_WORK_SQL, afterId, afterSeq, (int) Math.min(CATCH_UP_PAGE, room))
                    .forEach(r -> page.add(new TailRow(
                            r.get(0, Short.class),
                            r.get(1, UUID.class),
                            r.get(2, Integer.class),
                            new TailCursor(r.get(3, Long.class), r.get(4, Long.class)),
                            r.get(5, Integer.class),
                            r.get(6, OffsetDateTime.class).toInstant())));
            if (page.isEmpty()) {
                break;
            }
            total += publisher.publish(page, shard -> epoch, tx -> {});
            stream.forceUpdateStatus();
            afterId = page.getLast().messageId();
            afterSeq = page.getLast().seq();
        }
        caughtUp.inc(total);
        LOG.info(
                "cdc feed caught up slot={}: published {} work events committed before the slot existed",
                slot.name(),
                total);
        return true;
    }

    /** A new message: its row is its acceptance, the work of attempt 1 at seq 1. */
    private static TailRow acceptedRow(Map<String, String> v) {
        return new TailRow(
                Short.parseShort(v.get("shard")),
                UUID.fromString(v.get("id")),
                1,
                new TailCursor(Long.parseLong(v.get("xid")), Long.parseLong(v.get("position"))),
                1,
                timestamp(v.get("accepted_at")));
    }

    private static TailRow redrivenRow(Map<String, String> v) {
        return new TailRow(
                Short.parseShort(v.get("shard")),
                UUID.fromString(v.get("message_id")),
                Integer.parseInt(v.get("seq")),
                new TailCursor(Long.parseLong(v.get("xid")), Long.parseLong(v.get("position"))),
                Integer.parseInt(v.get("attempt")),
                timestamp(v.get("at")));
    }

    /** A timestamptz in PostgreSQL's text form ({@code 2026-11-30 16:05:01.123456+00}). */
    static Instant timestamp(String text) {
        String iso = text.replace(' ', 'T');
        int sign = Math.max(iso.lastIndexOf('+'), iso.lastIndexOf('-'));
        if (sign > 10 && iso.length() - sign == 3) {
            iso = iso + ":00";
        }
        return OffsetDateTime.parse(iso).toInstant();
    }

    private Connection connect() throws SQLException {
        Properties props = new Properties();
        PGProperty.USER.set(props, target.user());
        if (target.password() != null) {
            PGProperty.PASSWORD.set(props, target.password());
        }
        PGProperty.ASSUME_MIN_SERVER_VERSION.set(props, "10");
        PGProperty.REPLICATION.set(props, "database");
        PGProperty.PREFER_QUERY_MODE.set(props, "simple");
        PGProperty.APPLICATION_NAME.set(props, actor);
        // A holder that stops answering (frozen, cut off) loses the slot after the lease time, as a shard lease would.
        PGProperty.OPTIONS.set(props, "-c wal_sender_timeout=" + leaseTtl.toMillis());
        return DriverManager.getConnection(target.jdbcUrl(), props);
    }

    private void closeConnection() {
        Connection c = connection;
        connection = null;
        if (c != null) {
            try {
                c.close();
            } catch (SQLException e) {
                LOG.debug("closing the cdc connection: {}", e.toString());
            }
        }
    }

    private static void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
