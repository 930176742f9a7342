package dev.sendlog.compactor;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates day partitions ahead of time without blocking inserts: a plain table is created and given
 * a CHECK matching its range, then attached with ATTACH PARTITION, which takes only a SHARE UPDATE
 * EXCLUSIVE lock on the parent (CREATE TABLE ... PARTITION OF would take ACCESS EXCLUSIVE). The CHECK
 * lets PostgreSQL skip the validation scan. There is never a DEFAULT partition.
 */
public final class PartitionManager {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionManager.class);
    /** Serialises partition DDL across service instances. */
    static final long DDL_LOCK_KEY = 0x73656E646C6F67L;
    /**
     * How long an instance waits for another one's partition DDL (every instance ensures the partitions when it
     * starts, so a fleet started together queues here). The wait holds no lock that an insert needs, so it may be
     * longer than the DDL's own lock timeout.
     */
    static final Duration DDL_TURN_WAIT = Duration.ofSeconds(60);

    private final DataSource dataSource;
    private final Duration lockTimeout;

    /**
     * @param lockTimeout how long DDL may wait for a lock; short, so that DDL stuck behind a long transaction
     *                    gives up (and is retried on the next run) instead of queueing inserts behind it. Waiting for
     *                    another instance to finish its partition DDL is bounded by {@link #DDL_TURN_WAIT} instead.
     */
    public PartitionManager(DataSource dataSource, Duration lockTimeout) {
        this.dataSource = dataSource;
        this.lockTimeout = lockTimeout;
    }

    /** Makes sure both tables have partitions from {@code from} through {@code from + daysAhead}. Returns those created. */
    public List<DayPartition> ensure(LocalDate from, int daysAhead) throws SQLException {
        List<DayPartition> created = new ArrayList<>();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (Statement st = c.createStatement()) {
                st.execute("SET lock_timeout = '" + DDL_TURN_WAIT.toMillis() + "ms'");
                st.execute("SELECT pg_advisory_lock(" + DDL_LOCK_KEY + ")");
                st.execute("SET lock_timeout = '" + lockTimeout.toMillis() + "ms'");
            }
            try {
                for (PartitionedTable table : PartitionedTable.values()) {
                    TreeSet<LocalDate> existing = days(c, table);
                    for (int i = 0; i <= daysAhead; i++) {
                        DayPartition p = new DayPartition(table, from.plusDays(i));
                        if (!existing.contains(p.day())) {
                            create(c, p);
                            created.add(p);
                        }
                    }
                }
            } finally {
                try (Statement st = c.createStatement()) {
                    st.execute("SELECT pg_advisory_unlock(" + DDL_LOCK_KEY + ")");
                    st.execute("RESET lock_timeout");
                }
            }
        }
        return created;
    }

    /** How many consecutive days from {@code today} have partitions in both tables (0 when today has none). */
    public int daysCovered(LocalDate today) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            int covered = Integer.MAX_VALUE;
            for (PartitionedTable table : PartitionedTable.values()) {
                TreeSet<LocalDate> days = days(c, table);
                int n = 0;
                while (days.contains(today.plusDays(n))) {
                    n++;
                }
                covered = Math.min(covered, n);
            }
            return covered;
        }
    }

    /** The days that have a partition of {@code table}, in order. */
    public TreeSet<LocalDate> days(PartitionedTable table) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            return days(c, table);
        }
    }

    private static TreeSet<LocalDate> days(Connection c, PartitionedTable table) throws SQLException {
        TreeSet<LocalDate> days = new TreeSet<>();
        String sql = """
                SELECT child.relname FROM pg_inherits i
                JOIN pg_class parent ON parent.oid = i.inhparent
                JOIN pg_class child ON child.oid = i.inhrelid
                JOIN pg_namespace n ON n.oid = parent.relnamespace
                WHERE parent.relname = ? AND n.nspname = current_schema()""";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, table.table());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    LocalDate day = DayPartition.dayOf(table, rs.getString(1));
                    if (day != null) {
                        days.add(day);
                    }
                }
            }
        }
        return days;
    }

    private static void create(Connection c, DayPartition p) throws SQLException {
        String name = p.name();
        String parent = p.table().table();
        String key = p.table().keyColumn();
        String lo = p.lowerBound().toString();
        String hi = p.upperBound().toString();
        try (Statement st = c.createStatement()) {
            // A table left over by an interrupted run is reused: every statement below is idempotent.
            st.execute("CREATE TABLE IF NOT EXISTS " + name + " (LIKE " + parent
                    + " INCLUDING DEFAULTS INCLUDING CONSTRAINTS)");
            st.execute("ALTER TABLE " + name + " DROP CONSTRAINT IF EXISTS " + name + "_range");
            st.execute("ALTER TABLE " + name + " ADD CONSTRAINT " + name + "_range CHECK (" + key + " >= '" + lo
                    + "'::uuid AND " + key + " < '" + hi + "'::uuid)");
            st.execute("ALTER TABLE " + parent + " ATTACH PARTITION " + name + " FOR VALUES FROM ('" + lo + "') TO ('"
                    + hi + "')");
        }
        LOG.info("partition created table={} partition={} from={} to={}", parent, name, lo, hi);
    }
}
