package dev.sendlog.compactor;

import dev.sendlog.events.Compacted;
import dev.sendlog.events.EventCodec;
import dev.sendlog.events.EventType;
import dev.sendlog.events.FinalStatus;
import dev.sendlog.events.RowCodec;
import dev.sendlog.events.StoredEvent;
import dev.sendlog.events.UnreadableEventException;
import dev.sendlog.log.Actors;
import dev.sendlog.log.Histories;
import dev.sendlog.log.LogRows;
import dev.sendlog.log.LoggedRow;
import dev.sendlog.projections.InvalidTransitionException;
import dev.sendlog.projections.MessageFold;
import dev.sendlog.projections.MessageState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
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

    private static final String ACTOR = "compactor";

    private final DataSource dataSource;
    private final Histories histories;
    private final Actors actors;
    private final Duration lockTimeout;
    private final Consumer<CompactionStep> afterStep;

    /**
     * @param afterStep called after each step completes; tests throw from it to stop a run between steps
     */
    public Compactor(
            DataSource dataSource, EventCodec codec, Duration lockTimeout, Consumer<CompactionStep> afterStep) {
        this.dataSource = dataSource;
        this.histories = new Histories(new RowCodec(codec));
        this.actors = new Actors(dataSource);
        this.lockTimeout = lockTimeout;
        this.afterStep = afterStep;
    }

    /**
     * Compacts every day before {@code cutoff} that is not compacted yet (and finishes interrupted ones), then drops
     * the publications only compacted days still named (see {@link #forgetPublications}).
     */
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
        forgetPublications();
        return done;
    }

    /**
     * Publications are what a history shows as PUBLISHED until its day is compacted (the snapshot holds it from then
     * on). One published before the first day that is not compacted names only messages of compacted days; once the
     * timers have nothing left to watch in it (check_at NULL), it is deleted, in small batches. Returns how many.
     */
    public long forgetPublications() throws SQLException {
        long deleted = 0;
        try (Connection c = dataSource.getConnection();
                Statement st = c.createStatement()) {
            c.setAutoCommit(true);
            LocalDate firstOpen = null;
            try (ResultSet rs = st.executeQuery("""
                    SELECT t.relname FROM pg_class t JOIN pg_namespace n ON n.oid = t.relnamespace
                    WHERE n.nspname = current_schema() AND t.relkind = 'r' AND t.relname LIKE 'message_events_p%'""")) {
                List<String> names = new ArrayList<>();
                while (rs.next()) {
                    names.add(rs.getString(1).replace("_c", ""));
                }
                for (String name : names) {
                    LocalDate day = DayPartition.dayOf(PartitionedTable.MESSAGE_EVENTS, name);
                    if (day != null && !isCompacted(c, day) && (firstOpen == null || day.isBefore(firstOpen))) {
                        firstOpen = day;
                    }
                }
            }
            if (firstOpen == null) {
                firstOpen = LocalDate.of(9999, 1, 1); // every day is compacted
            }
            try (PreparedStatement ps = c.prepareStatement("""
                    DELETE FROM publications WHERE id IN (
                        SELECT id FROM publications WHERE check_at IS NULL AND published_at < ? LIMIT 1000)""")) {
                ps.setObject(1, firstOpen.atStartOfDay().atOffset(ZoneOffset.UTC));
                int n;
                do {
                    n = ps.executeUpdate();
                    deleted += n;
                } while (n == 1000);
            }
        }
        if (deleted > 0) {
            LOG.info("publications of compacted days forgotten: {}", deleted);
        }
        return deleted;
    }

    private List<LocalDate> candidates(LocalDate cutoff) throws SQLException {
        List<LocalDate> days = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                Statement st = c.createStatement();
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
                    exec(
                            c,
                            "ALTER TABLE " + PARENT + " ATTACH PARTITION " + side + " FOR VALUES FROM ('"
                                    + partition.lowerBound() + "') TO ('" + partition.upperBound() + "')");
                    step(c, day, CompactionStep.ATTACHED, null);
                } else if (originalExists && originalPending != null) {
                    copy(c, day, partition, original, side);
                    afterStep.accept(CompactionStep.COPIED);
                    exec(c, "ALTER TABLE " + PARENT + " DETACH PARTITION " + original + " CONCURRENTLY");
                    step(c, day, CompactionStep.DETACHED, null);
                } else {
                    throw new IllegalStateException("compaction of " + day + " found neither " + original + " nor "
                            + side + " in a state it knows; nothing was changed");
                }
            }
            throw new IllegalStateException("compaction of " + day + " did not finish in 10 steps");
        }
    }

    /** Fills the side table with one snapshot per message, under a lock that keeps writers out of the day meanwhile. */
    private void copy(Connection c, LocalDate day, DayPartition partition, String original, String side)
            throws SQLException {
        exec(
                c,
                "CREATE TABLE IF NOT EXISTS " + side + " (LIKE " + PARENT
                        + " INCLUDING DEFAULTS INCLUDING CONSTRAINTS)");
        exec(c, "ALTER TABLE " + side + " DROP CONSTRAINT IF EXISTS " + side + "_range");
        exec(
                c,
                "ALTER TABLE " + side + " ADD CONSTRAINT " + side + "_range CHECK (message_id >= '"
                        + partition.lowerBound() + "'::uuid AND message_id < '" + partition.upperBound() + "'::uuid)");
        int compactorId = actors.id(ACTOR);
        c.setAutoCommit(false);
        try {
            exec(c, "TRUNCATE " + side);
            exec(c, "LOCK TABLE " + original + " IN SHARE MODE");
            requireReadPast(c, original);
            long eventsIn = 0;
            int messages = 0;
            List<Snapshot> snapshots = new ArrayList<>();
            List<UUID> keptRaw = new ArrayList<>();
            try (Statement st = c.createStatement()) {
                st.setFetchSize(5000);
                // The messages rows and the publications the rows name: the history as every reader shows it.
                try (ResultSet rs = st.executeQuery(
                        "SELECT m.tenant, m.gateway, m.accepted_at, " + LogRows.COLUMNS + ", m.send_at FROM "
                                + original + " e JOIN messages m ON m.id = e.message_id " + LogRows.JOIN_PUBLICATION
                                + " ORDER BY e.message_id, e.seq")) {
                    UUID current = null;
                    String tenant = null;
                    String gateway = null;
                    Instant acceptedAt = null;
                    Instant sendAt = null;
                    List<LoggedRow> rows = new ArrayList<>();
                    while (rs.next()) {
                        LoggedRow row = LogRows.read(rs, 4, actors);
                        if (current != null && !current.equals(row.messageId())) {
                            snapshot(current, tenant, gateway, acceptedAt, sendAt, rows, snapshots, keptRaw);
                            messages++;
                            rows = new ArrayList<>();
                        }
                        current = row.messageId();
                        tenant = rs.getString(1);
                        gateway = rs.getString(2);
                        acceptedAt = rs.getObject(3, OffsetDateTime.class).toInstant();
                        OffsetDateTime sendAtColumn = rs.getObject(4 + LogRows.COUNT, OffsetDateTime.class);
                        sendAt = sendAtColumn == null ? null : sendAtColumn.toInstant();
                        rows.add(row);
                        eventsIn++;
                        if (snapshots.size() >= BATCH) {
                            insert(c, side, snapshots, compactorId);
                        }
                    }
                    if (current != null) {
                        snapshot(current, tenant, gateway, acceptedAt, sendAt, rows, snapshots, keptRaw);
                        messages++;
                    }
                }
            }
            insert(c, side, snapshots, compactorId);
            keepRaw(c, original, side, keptRaw);
            step(c, day, CompactionStep.COPIED, messages + " messages, " + eventsIn + " events");
            c.commit();
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }

    /** One message's snapshot: its whole history (acceptance and publications included), the seq and time of its last. */
    private record Snapshot(UUID messageId, int seq, Instant at, byte[] packed, FinalStatus status, String tenant) {}

    /**
     * One COMPACTED row for the message, taking the seq of its last event (the next append continues after it), and the
     * final status of the state it folds (search by status still finds the message). A history the fold refuses is kept
     * as it is, row by row, and said loudly: compaction never loses what it cannot read.
     */
    private void snapshot(
            UUID id,
            String tenant,
            String gateway,
            Instant acceptedAt,
            Instant sendAt,
            List<LoggedRow> rows,
            List<Snapshot> snapshots,
            List<UUID> keptRaw) {
        List<StoredEvent> history;
        MessageState state;
        try {
            history = histories.assemble(id, tenant, gateway, acceptedAt, sendAt, rows);
            state = MessageFold.fold(history);
        } catch (InvalidTransitionException | UnreadableEventException e) {
            LOG.error(
                    "compaction keeps the raw events of message_id={}: its history does not fold: {}",
                    id,
                    e.getMessage());
            keptRaw.add(id);
            return;
        }
        StoredEvent last = history.getLast();
        FinalStatus status =
                state.status().isFinal() ? FinalStatus.ofName(state.status().name()) : null;
        snapshots.add(new Snapshot(
                id,
                last.seq(),
                last.at(),
                histories.codec().codec().packSnapshot(new Compacted(history)),
                status,
                status == null ? null : tenant));
    }

    private static void insert(Connection c, String table, List<Snapshot> snapshots, int compactorId)
            throws SQLException {
        if (snapshots.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table
                + " (message_id, seq, at, type, actor, packed, status, tenant) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
            for (Snapshot s : snapshots) {
                ps.setObject(1, s.messageId());
                ps.setInt(2, s.seq());
                ps.setObject(3, OffsetDateTime.ofInstant(s.at(), ZoneOffset.UTC));
                ps.setShort(4, EventType.COMPACTED.code());
                ps.setInt(5, compactorId);
                ps.setBytes(6, s.packed());
                if (s.status() == null) {
                    ps.setNull(7, java.sql.Types.SMALLINT);
                } else {
                    ps.setShort(7, s.status().code());
                }
                ps.setString(8, s.tenant());
                ps.addBatch();
            }
            ps.executeBatch();
        }
        snapshots.clear();
    }

    private static void keepRaw(Connection c, String original, String side, List<UUID> ids) throws SQLException {
        if (ids.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO " + side + " SELECT * FROM " + original + " WHERE message_id = ANY(?)")) {
            ps.setArray(1, c.createArrayOf("uuid", ids.toArray(UUID[]::new)));
            ps.executeUpdate();
        }
    }

    /** Copies the events that reached the original after the copy (their seq is past the message's snapshot). */
    private static long reconcile(Connection c, String original, String side) throws SQLException {
        try (Statement st = c.createStatement()) {
            return st.executeUpdate("INSERT INTO " + side + " SELECT e.* FROM " + original + " e WHERE NOT EXISTS "
                    + "(SELECT 1 FROM " + side + " s WHERE s.message_id = e.message_id AND s.seq >= e.seq)");
        }
    }

    /** Every work event of the partition (REDRIVEN) is behind the cursor of its shard's poller. */
    private static void requireReadPast(Connection c, String original) throws SQLException {
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(
                        """
                SELECT count(*) FROM %s e JOIN shard_leases l ON l.shard = e.shard
                WHERE {work} AND (e.xid, e.position) > (l.publish_xid, l.publish_position)
                """.formatted(original).replace("{work}", dev.sendlog.events.LogPredicates.WORK))) {
            rs.next();
            long unread = rs.getLong(1);
            if (unread > 0) {
                throw new NotReadPastException(
                        unread + " work events of " + original + " are not yet read by a poller");
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
            try (Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("SELECT count(*) FILTER (WHERE type = " + EventType.COMPACTED.code()
                            + "), count(*) FROM " + original)) {
                rs.next();
                snapshots = rs.getLong(1);
                events = rs.getLong(2);
            }
            long before = eventsBefore(c, day);
            try (PreparedStatement ps =
                    c.prepareStatement("INSERT INTO compacted_days (day, messages, events_in, snapshots, compacted_at) "
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
        try (PreparedStatement ps =
                c.prepareStatement("SELECT detail FROM compaction_steps WHERE day = ? AND step = 'COPIED' "
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
        try (PreparedStatement ps =
                c.prepareStatement("INSERT INTO compaction_steps (day, step, detail) VALUES (?, ?, ?)")) {
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
