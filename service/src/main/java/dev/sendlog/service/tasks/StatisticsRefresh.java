package dev.sendlog.service.tasks;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the planner's statistics of the database's tables current, by autovacuum's own rule: a table whose rows
 * changed by more than 50 plus 10% of its counted size since its last ANALYZE is analyzed again. Where autovacuum
 * runs, it has usually done so already and this finds nothing; where it is off (as on the server these figures were
 * measured on), a day partition would never be analyzed. The server then plans against a partition it believes
 * nearly empty, and keeps the plans it caches for prepared statements until something invalidates them; an ANALYZE
 * does. Measured before this job: the reads of messages by id came to scan the whole day's partition, up to 2,748
 * times in one 50,000-message benchmark run.
 *
 * <p>Each ANALYZE runs in a transaction of its own with a short lock timeout, so it never queues in front of a
 * partition being attached or detached: a table it cannot lock now is left for the next round.
 */
public final class StatisticsRefresh implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(StatisticsRefresh.class);
    static final long MIN_CHANGED_ROWS = 50;
    static final double CHANGED_FRACTION = 0.1;
    private static final String STALE_SQL = """
            SELECT format('%I.%I', s.schemaname, s.relname)
            FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
            WHERE c.relkind = 'r' AND s.n_mod_since_analyze > ? + ? * greatest(c.reltuples, 0)
            ORDER BY s.n_mod_since_analyze DESC""";

    private final DataSource dataSource;
    private final Duration lockTimeout;
    private final int statisticsTarget;
    private final Counter analyzed;
    private final Counter lockBusy;
    private final Counter failures;

    public StatisticsRefresh(
            DataSource dataSource, Duration lockTimeout, int statisticsTarget, MetricRegistry metrics) {
        this.dataSource = dataSource;
        this.lockTimeout = lockTimeout;
        this.statisticsTarget = statisticsTarget;
        this.analyzed = metrics.counter("statistics.tables.analyzed");
        this.lockBusy = metrics.counter("statistics.tables.busy");
        this.failures = metrics.counter("statistics.refresh.failures");
    }

    /** Analyzes the tables that changed enough since their last ANALYZE; returns their names. */
    public List<String> refresh() throws SQLException {
        List<String> done = new ArrayList<>();
        try (Connection c = dataSource.getConnection()) {
            List<String> stale = DueTables.of(c, STALE_SQL, MIN_CHANGED_ROWS, CHANGED_FRACTION);
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                for (String table : stale) {
                    try {
                        st.execute("SET LOCAL lock_timeout = " + lockTimeout.toMillis());
                        st.execute("SET LOCAL default_statistics_target = " + statisticsTarget);
                        st.execute("ANALYZE " + table);
                        c.commit();
                        analyzed.inc();
                        done.add(table);
                    } catch (SQLException e) {
                        c.rollback();
                        if (!"55P03".equals(e.getSQLState())) {
                            throw e;
                        }
                        lockBusy.inc();
                        LOG.info("table {} is locked by another change; its statistics wait for the next round", table);
                    }
                }
            } finally {
                c.setAutoCommit(autoCommit);
            }
        }
        return done;
    }

    @Override
    public void run() {
        try {
            List<String> done = refresh();
            if (!done.isEmpty()) {
                LOG.debug("analyzed {}", done);
            }
        } catch (Exception e) {
            failures.inc();
            LOG.error("refreshing the planner's statistics failed; plans may be made on stale row counts", e);
        }
    }
}
