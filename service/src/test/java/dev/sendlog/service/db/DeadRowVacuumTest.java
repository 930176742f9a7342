package dev.sendlog.service.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Where autovacuum is off (for the server or for a table), nothing removes the dead rows an UPDATE leaves, and a table
 * updated in place grows with every round of updates. The vacuum job applies autovacuum's rule to those tables, so the
 * space of dead rows is used again; tables autovacuum looks after are left to it, and a table locked by another change
 * is skipped, never waited for. Only the maintenance component runs here, its scheduled round an hour away: the test
 * runs it through {@code POST /tasks/vacuum}. Each test has a table of its own.
 */
class DeadRowVacuumTest {
    private static final int ROWS = 5_000;

    @RegisterExtension
    static final ServiceHarness SERVICE =
            new ServiceHarness("components", "MAINTENANCE", "partitions.vacuumEvery", "1h");

    @Test
    void aTableUpdatedInPlaceWithoutAutovacuumIsVacuumedAndStopsGrowing() throws SQLException {
        String table = table("probe_off", "autovacuum_enabled = false");
        updateAll(table);
        long grown = size(table);

        ApiResponse vacuum = vacuum();
        assertThat(vacuum.raw()).contains(table);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> Sql.count(
                                        SERVICE.dataSource(),
                                        "SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = '" + table + "'")
                                == 1
                        && deadRows(table) == 0);

        // The same round of updates again fits in the space the dead rows left: the table hardly grows. Without the
        // VACUUM every new version would need room of its own, as many pages again as the table holds live.
        updateAll(table);
        assertThat(size(table)).isLessThanOrEqualTo(grown + grown / 10);
        assertThat(SERVICE.admin()
                        .get("/metrics", null)
                        .json()
                        .path("counters")
                        .path("vacuum.tables.vacuumed")
                        .path("count")
                        .asLong())
                .isPositive();
    }

    @Test
    void aTableWithFewDeadRowsIsLeftAlone() throws SQLException {
        String table = table("probe_few", "autovacuum_enabled = false");
        exec("UPDATE " + table + " SET n = n + 1 WHERE id <= 40"); // 40 dead rows: under 50 + 20% of 5,000
        flushStatistics(table, 40);
        assertThat(vacuum().raw()).doesNotContain(table);
    }

    @Test
    void aTableAutovacuumLooksAfterIsLeftToItAndOneWithoutIsNot() throws SQLException {
        String table = table("probe_on", "autovacuum_enabled = true");
        updateAll(table);
        boolean serverAutovacuum =
                Sql.count(SERVICE.dataSource(), "SELECT current_setting('autovacuum')::boolean::int") == 1;
        if (serverAutovacuum) {
            assertThat(vacuum().raw())
                    .as("autovacuum runs here and will vacuum it")
                    .doesNotContain(table);
        } else {
            assertThat(vacuum().raw()).as("autovacuum is off on this server").contains(table);
        }
    }

    @Test
    void aLockedTableIsSkippedAtOnceAndLeftForTheNextRound() throws SQLException {
        String table = table("probe_locked", "autovacuum_enabled = false");
        updateAll(table);
        long busyBefore = busy();
        try (Connection holder = SERVICE.dataSource().getConnection();
                Statement st = holder.createStatement()) {
            holder.setAutoCommit(false);
            st.execute("LOCK TABLE " + table + " IN SHARE UPDATE EXCLUSIVE MODE"); // what VACUUM and a DETACH take
            assertThat(vacuum().raw()).doesNotContain(table);
            assertThat(busy()).isEqualTo(busyBefore + 1);
            holder.rollback();
        }
        assertThat(vacuum().raw()).contains(table);
    }

    /** A table of {@link #ROWS} rows with the given storage option; its name is unique to the test. */
    private static String table(String name, String option) throws SQLException {
        exec("DROP TABLE IF EXISTS " + name);
        exec("CREATE TABLE " + name + " (id int PRIMARY KEY, n int NOT NULL, pad text NOT NULL) WITH (" + option + ")");
        exec("INSERT INTO " + name + " SELECT i, 0, repeat('x', 100) FROM generate_series(1, " + ROWS + ") i");
        exec("ANALYZE " + name); // the row count autovacuum's rule is relative to
        return name;
    }

    /** Updates every row once (each leaves a dead version) and waits until the server's statistics count them. */
    private static void updateAll(String table) throws SQLException {
        long before = Sql.count(
                SERVICE.dataSource(), "SELECT n_tup_upd FROM pg_stat_user_tables WHERE relname = '" + table + "'");
        exec("UPDATE " + table + " SET n = n + 1");
        flushStatistics(table, before + ROWS);
    }

    private static void flushStatistics(String table, long updates) {
        // A session publishes its counts when it goes idle, at most once a second; the test waits for them.
        await().atMost(Duration.ofSeconds(30))
                .until(() -> Sql.count(
                                SERVICE.dataSource(),
                                "SELECT n_tup_upd FROM pg_stat_user_tables WHERE relname = '" + table + "'")
                        >= updates);
    }

    private static ApiResponse vacuum() {
        ApiResponse r = SERVICE.admin().post("/tasks/vacuum", "admin-1", "");
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        return r;
    }

    private static long busy() {
        return SERVICE.admin()
                .get("/metrics", null)
                .json()
                .path("counters")
                .path("vacuum.tables.busy")
                .path("count")
                .asLong();
    }

    private static long deadRows(String table) {
        return Sql.count(
                SERVICE.dataSource(), "SELECT n_dead_tup FROM pg_stat_user_tables WHERE relname = '" + table + "'");
    }

    private static long size(String table) {
        return Sql.count(SERVICE.dataSource(), "SELECT pg_relation_size('" + table + "')");
    }

    private static void exec(String sql) throws SQLException {
        try (Connection c = SERVICE.dataSource().getConnection();
                Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }
}
