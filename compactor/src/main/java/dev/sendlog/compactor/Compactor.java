package dev.sendlog.compactor;

import dev.sendlog.events.Compacted;
import dev.sendlog.events.EncodedEvent;
import dev.sendlog.events.EventCodec;
import dev.sendlog.events.EventType;
import dev.sendlog.events.StoredEvent;
import dev.sendlog.projections.InvalidTransitionException;
import dev.sendlog.projections.MessageFold;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Folds the events of a day older than the retention into one COMPACTED snapshot per message, then swaps the day's
 * event partition for the compacted one: the old partition is detached (CONCURRENTLY: inserts elsewhere never wait)
 * and dropped, never emptied with DELETE. The messages' rows stay: they are the snapshots' header.
 *
 * <p>Crash-safe: every run reads the catalog to learn how far a day got (side table filled, old partition detach
 * pending, detached, side table attached, old dropped) and continues from there; every step can run again.
 * Events that reach the old partition after the copy (a late receipt) are carried over before the swap, so none is
 * lost. A day whose events a poller or the projector has not yet read past is left for a later run.
 */
public final class Compactor {
    private static final Logger LOG = LoggerFactory.getLogger(Compactor.class);
    private static final int BATCH = 500;
    private static final String PARENT = PartitionedTable.MESSAGE_EVENTS.table();

    private final DataSource dataSource;
    private final EventCodec codec;
    private final Duration lockTimeout;
    private final Consumer<CompactionStep> afterStep;

    /**
     * @param afterStep called after each step completes; tests throw from it to stop a run between steps
     */
    public Compactor(DataSource dataSource, EventCodec codec, Duration lockTimeout, Consumer<CompactionStep> afterStep) {
        this.dataSource = dataSource;
        this.codec = codec;
        this.lockTimeout = lockTimeout;
        this.afterStep = afterStep;
    }

    /** Compacts every day before {@code cutoff} that is not compacted yet (and finishes interrupted ones). */
    public List<LocalDate> compactBefore(LocalDate cutoff) throws SQLException {
        List<LocalDate> done = new ArrayList<>();
        for (LocalDate day : candidates(cutoff)) {
            try {
                compact(day);
                done.add(day);
            } catch (NotReadPastException e) {
                LOG.info("compaction of {} postponed: {}", day, e.getMessage());
            }
        }
        return done;
    }

    private List<LocalDate> candidates(LocalDate cutoff) throws SQLException {
        List<LocalDate> days = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("""
                     SELECT t.relname FROM pg_class t JOIN pg_namespace n ON n.oid = t.relnamespace
                     WHERE n.nspname = current_schema() AND t.relkind = 'r' AND t.relname LIKE 'message_events_p%'""")) {
            while (rs.next()) {
                String name = rs.getString(1).replace("_c", "");
                LocalDate day = DayPartition.dayOf(PartitionedTable.MESSAGE_EVENTS, name);
                if (day != null && day.isBefore(cutoff) && !days.contains(day) && !isCompacted(c, day)) {
                    days.add(day);
                }
            }
        }
        days.sort(null);
        return days;
    }

    /** Runs (or resumes) the compaction of one day until it is done. */
    public void compact(LocalDate day) throws SQLException {
        DayPartition partition = new DayPartition(PartitionedTable.MESSAGE_EVENTS, day);
        String original = partition.name();
        String side = original + "_c";
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (Statement st = c.createStatement()) {
                st.execute("SET lock_timeout = '" + lockTimeout.toMillis() + "ms'");
            }
            for (int guard = 0; guard < 10; guard++) {
                if (isCompacted(c, day)) {
                    return;
                }
                boolean originalExists = exists(c, original);
                Boolean originalPending = attachment(c, original);
                Boolean sideAttached = attachment(c, side);
                if (sideAttached != null && !sideAttached) {
                    if (originalExists) {
                        exec(c, "DROP TABLE " + original);
                        step(c, day, CompactionStep.DROPPED, null);
                    } else {
                        finish(c, day, side, original);
                        return;
                    }
                } else if (originalPending != null && originalPending) {
                    exec(c, "ALTER TABLE " + PARENT + " DETACH PARTITION " + original + " FINALIZE");
                    step(c, day, CompactionStep.DETACHED, "finalized");
                } else if (originalExists && originalPending == null && exists(c, side)) {
                    long carried = reconcile(c, original, side);
                    step(c, day, CompactionStep.RECONCILED, carried + " late events carried over");
                    exec(c, "ALTER TABLE " + PARENT + " ATTACH PARTITION " + side + " FOR VALUES FROM ('"
                            + partition.lowerBound() + "') TO ('" + partition.upperBound() + "')");
                    step(c, day, CompactionStep.ATTACHED, null);
                } else if (originalExists && originalPending != null) {
                    copy(c, day, partition, original, side);
                    afterStep.accept(CompactionStep.COPIED);
                    exec(c, "ALTER TABLE " + PARENT + " DETACH PARTITION " + original + " CONCURRENTLY");
                    step(c, day, CompactionStep.DETACHED, null);
                } else {
                    throw new IllegalStateException("compaction of " + day + " found neither " + original + " nor " + side
                            + " in a state it knows; nothing was changed");
                }
            }
            throw new IllegalStateException("compaction of " + day + " did not finish in 10 steps");
        }
    }

    /** Fills the side table with one snapshot per message, under a lock that keeps writers out of the day meanwhile. */
    private void copy(Connection c, LocalDate day, DayPartition partition, String original, String side) throws SQLException {
        exec(c, "CREATE TABLE IF NOT EXISTS " + side + " (LIKE " + PARENT + " INCLUDING DEFAULTS INCLUDING CONSTRAINTS)");
        exec(c, "ALTER TABLE " + side + " DROP CONSTRAINT IF EXISTS " + side + "_range");
        exec(c, "ALTER TABLE " + side + " ADD CONSTRAINT " + side + "_range CHECK (message_id >= '" + partition.lowerBound()
                + "'::uuid AND message_id < '" + partition.upperBound() + "'::uuid)");
        c.setAutoCommit(false);
        try {
            exec(c, "TRUNCATE " + side);
            exec(c, "LOCK TABLE " + original + " IN SHARE MODE");
            requireReadPast(c, original);
            long eventsIn = 0;
            int messages = 0;
            List<StoredEvent> history = new ArrayList<>();
            List<Object[]> rows = new ArrayList<>();
            try (Statement st = c.createStatement()) {
                st.setFetchSize(5000);
                try (ResultSet rs = st.executeQuery("SELECT message_id, seq, position, xid, shard, type, version, actor, at, "
                        + "data::text FROM " + original + " ORDER BY message_id, seq")) {
                    UUID current = null;
                    short shard = 0;
                    long lastPosition = 0;
                    List<Object[]> raw = new ArrayList<>();
                    while (rs.next()) {
                        UUID id = rs.getObject(1, UUID.class);
                        if (current != null && !current.equals(id)) {
                            snapshot(current, shard, lastPosition, history, raw, rows);
                            messages++;
                            history = new ArrayList<>();
                            raw = new ArrayList<>();
                        }
                        current = id;
                        shard = rs.getShort(5);
                        lastPosition = rs.getLong(3);
                        EventType type = EventType.valueOf(rs.getString(6));
                        history.add(new StoredEvent(id, rs.getInt(2), rs.getObject(9, OffsetDateTime.class).toInstant(),
                                rs.getString(8), codec.decode(id, type, rs.getInt(7), rs.getString(10))));
                        raw.add(new Object[] {id, rs.getInt(2), rs.getLong(3), rs.getLong(4), rs.getShort(5), rs.getString(6),
                                (short) rs.getInt(7), rs.getString(8), rs.getObject(9, OffsetDateTime.class), rs.getString(10)});
                        eventsIn++;
                        if (rows.size() >= BATCH) {
                            insert(c, side, rows);
                        }
                    }
                    if (current != null) {
                        snapshot(current, shard, lastPosition, history, raw, rows);
                        messages++;
                    }
                }
            }
            insert(c, side, rows);
            step(c, day, CompactionStep.COPIED, messages + " messages, " + eventsIn + " events");
            c.commit();
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }

    /**
     * One COMPACTED row for the message, taking the seq of its last event (the next append continues after it) and
     * the position of its last event with xid 0, so no tail reader sees it as new. A history the fold refuses is
     * kept as it is, event by event, and said loudly: compaction never loses what it cannot read.
     */
    private void snapshot(UUID id, short shard, long lastPosition, List<StoredEvent> history, List<Object[]> raw,
                          List<Object[]> rows) {
        try {
            MessageFold.fold(history);
        } catch (InvalidTransitionException e) {
            LOG.error("compaction keeps the raw events of message_id={}: its history does not fold: {}", id, e.getMessage());
            rows.addAll(raw);
            return;
        }
        StoredEvent last = history.getLast();
        EncodedEvent encoded = codec.encode(new Compacted(history));
        rows.add(new Object[] {id, last.seq(), lastPosition, 0L, shard, encoded.type().name(), (short) encoded.version(),
                "compactor", OffsetDateTime.ofInstant(last.at(), java.time.ZoneOffset.UTC), encoded.json()});
    }

    private static void insert(Connection c, String table, List<Object[]> rows) throws SQLException {
        if (rows.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table
                + " (message_id, seq, position, xid, shard, type, version, actor, at, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb)")) {
            for (Object[] r : rows) {
                for (int i = 0; i < r.length; i++) {
                    ps.setObject(i + 1, r[i]);
                }
                ps.addBatch();
            }
            ps.executeBatch();
        }
        rows.clear();
    }

    /** Copies the events that reached the original after the copy (their seq is past the message's snapshot). */
    private static long reconcile(Connection c, String original, String side) throws SQLException {
        try (Statement st = c.createStatement()) {
            return st.executeUpdate("INSERT INTO " + side + " SELECT e.* FROM " + original + " e WHERE NOT EXISTS "
                    + "(SELECT 1 FROM " + side + " s WHERE s.message_id = e.message_id AND s.seq >= e.seq)");
        }
    }

    /** Every event of the partition is behind the cursors of the shard's poller (work events) and projector. */
    private static void requireReadPast(Connection c, String original) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("""
                SELECT count(*) FROM %s e JOIN shard_leases l ON l.shard = e.shard
                WHERE (e.xid, e.position) > (l.project_xid, l.project_position)
                   OR (e.type IN ('ACCEPTED', 'REDRIVEN') AND (e.xid, e.position) > (l.publish_xid, l.publish_position))
                """.formatted(original))) {
            rs.next();
            long unread = rs.getLong(1);
            if (unread > 0) {
                throw new NotReadPastException(unread + " events of " + original + " are not yet read by a poller or the projector");
            }
        }
    }

    private void finish(Connection c, LocalDate day, String side, String original) throws SQLException {
        c.setAutoCommit(false);
        try {
            exec(c, "ALTER TABLE " + side + " RENAME TO " + original);
            exec(c, "ALTER TABLE " + original + " RENAME CONSTRAINT " + side + "_range TO " + original + "_range");
            long snapshots;
            long events;
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(
                    "SELECT count(*) FILTER (WHERE type = 'COMPACTED'), count(*) FROM " + original)) {
                rs.next();
                snapshots = rs.getLong(1);
                events = rs.getLong(2);
            }
            long before = eventsBefore(c, day);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO compacted_days (day, messages, events_in, snapshots, compacted_at) "
                    + "VALUES (?, ?, ?, ?, now()) ON CONFLICT DO NOTHING")) {
                ps.setObject(1, day);
                ps.setInt(2, (int) snapshots);
                ps.setLong(3, before);
                ps.setInt(4, (int) snapshots);
                ps.executeUpdate();
            }
            step(c, day, CompactionStep.DONE, events + " rows now (" + snapshots + " snapshots)");
            c.commit();
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
        LOG.info("day {} compacted", day);
    }

    private static long eventsBefore(Connection c, LocalDate day) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT detail FROM compaction_steps WHERE day = ? AND step = 'COPIED' "
                + "ORDER BY at DESC LIMIT 1")) {
            ps.setObject(1, day);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next() && rs.getString(1) != null) {
                    String detail = rs.getString(1);
                    return Long.parseLong(detail.substring(detail.indexOf(", ") + 2, detail.indexOf(" events")));
                }
            }
        }
        return -1;
    }

    private void step(Connection c, LocalDate day, CompactionStep step, String detail) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO compaction_steps (day, step, detail) VALUES (?, ?, ?)")) {
            ps.setObject(1, day);
            ps.setString(2, step.name());
            ps.setString(3, detail);
            ps.executeUpdate();
        }
        LOG.info("compaction day={} step={} {}", day, step, detail == null ? "" : detail);
        // COPIED and DONE are written inside their transactions; their hook runs after the commit.
        if (step != CompactionStep.COPIED && step != CompactionStep.DONE) {
            afterStep.accept(step);
        }
    }

    private static boolean isCompacted(Connection c, LocalDate day) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM compacted_days WHERE day = ?")) {
            ps.setObject(1, day);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    private static boolean exists(Connection c, String table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /** null: not a partition of message_events; false: attached; true: detach pending. */
    private static Boolean attachment(Connection c, String table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("""
                SELECT i.inhdetachpending FROM pg_inherits i
                WHERE i.inhrelid = to_regclass(?) AND i.inhparent = 'message_events'::regclass""")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getBoolean(1) : null;
            }
        }
    }

    private static void exec(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }
}
