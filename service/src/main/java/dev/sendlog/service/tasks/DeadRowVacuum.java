package dev.sendlog.service.tasks;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Vacuums the tables autovacuum would have vacuumed, where autovacuum will not: a table with more than 50 plus 20% of
 * its counted rows dead (autovacuum's own rule), on a server with autovacuum off or in a table opted out of it. The
 * event log only appends, but the status projection updates a message's row at every step it folds (a non-HOT update
 * whenever the status changes), so without a VACUUM it keeps every old version of every row, and the index entries
 * pointing to them, for ever: three dead rows for each live one after a 10,000-message callback flood on the server
 * these figures were measured on, where autovacuum is off. Where autovacuum runs this leaves the tables to it: a VACUUM
 * started here runs without autovacuum's cost-based delay, a load the server's operator did not choose.
 *
 * <p>Each VACUUM runs alone and {@code SKIP_LOCKED}: it never waits for, or queues ahead of, a partition being
 * attached or detached; a table it cannot lock now is left for the next round and counted.
 */
public final class DeadRowVacuum implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(DeadRowVacuum.class);
    static final long MIN_DEAD_ROWS = 50;
    static final double DEAD_FRACTION = 0.2;
    private static final String DUE_SQL = """
            SELECT format('%I.%I', s.schemaname, s.relname)
            FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
            WHERE c.relkind = 'r' AND s.n_dead_tup > ? + ? * greatest(c.reltuples, 0)
              AND NOT (current_setting('autovacuum')::boolean
                       AND coalesce((SELECT o.option_value::boolean FROM pg_options_to_table(c.reloptions) o
                                     WHERE o.option_name = 'autovacuum_enabled'), true))
            ORDER BY s.n_dead_tup DESC""";

    private final DataSource dataSource;
    private final Counter vacuumed;
    private final Counter lockBusy;
    private final Counter failures;

    public DeadRowVacuum(DataSource dataSource, MetricRegistry metrics) {
        this.dataSource = dataSource;
        this.vacuumed = metrics.counter("vacuum.tables.vacuumed");
        this.lockBusy = metrics.counter("vacuum.tables.busy");
        this.failures = metrics.counter("vacuum.failures");
    }

    /** Vacuums the tables that are due; returns their names (a table skipped because it was locked is not among them). */
    public List<String> vacuum() throws SQLException {
        List<String> done = new ArrayList<>();
        try (Connection c = dataSource.getConnection()) {
            List<String> due = DueTables.of(c, DUE_SQL, MIN_DEAD_ROWS, DEAD_FRACTION);
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(true); // VACUUM cannot run inside a transaction block
            try (Statement st = c.createStatement()) {
                for (String table : due) {
                    st.execute("VACUUM (SKIP_LOCKED) " + table);
                    if (skipped(st.getWarnings())) {
                        lockBusy.inc();
                        LOG.info("table {} is locked by another change; its dead rows wait for the next round", table);
                    } else {
                        vacuumed.inc();
                        done.add(table);
                    }
                    st.clearWarnings();
                }
            } finally {
                c.setAutoCommit(autoCommit);
            }
        }
        return done;
    }

    /** The server answers a VACUUM that could not lock its table at once with a warning (lock not available), not an error. */
    private static boolean skipped(SQLWarning warning) {
        for (SQLWarning w = warning; w != null; w = w.getNextWarning()) {
            if ("55P03".equals(w.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    /** The scheduled round: never throws, so the schedule goes on; a failure is counted and logged. */
    @Override
    public void run() {
        try {
            List<String> done = vacuum();
            if (!done.isEmpty()) {
                LOG.debug("vacuumed {}", done);
            }
        } catch (Exception e) {
            failures.inc();
            LOG.error("vacuuming tables with dead rows failed; they keep their dead rows until the next round", e);
        }
    }
}
