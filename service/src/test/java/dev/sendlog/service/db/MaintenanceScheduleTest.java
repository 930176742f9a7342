package dev.sendlog.service.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The maintenance component does, on its own, what its admin tasks do when asked: it refreshes the statistics every
 * {@code partitions.analyzeEvery} and vacuums the tables with dead rows that autovacuum leaves alone every
 * {@code partitions.vacuumEvery}.
 */
class MaintenanceScheduleTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
            "components", "MAINTENANCE", "partitions.analyzeEvery", "1s", "partitions.vacuumEvery", "1s");

    @Test
    void aPartitionThatFillsIsAnalyzedWithoutBeingAsked() throws SQLException {
        String partition;
        try (Connection c = SERVICE.dataSource().getConnection();
                Statement st = c.createStatement()) {
            StatisticsRefreshTest.withoutAutovacuum(st);
            partition = StatisticsRefreshTest.insertMessages(SERVICE.dataSource(), st, 2_000);
        }
        await().atMost(Duration.ofSeconds(30))
                .until(() -> Sql.count(
                                SERVICE.dataSource(),
                                "SELECT analyze_count FROM pg_stat_user_tables WHERE relname = '" + partition + "'")
                        >= 1);
        assertThat(SERVICE.admin()
                        .get("/metrics", null)
                        .json()
                        .path("counters")
                        .path("statistics.tables.analyzed")
                        .path("count")
                        .asLong())
                .isPositive();
    }

    @Test
    void aTableUpdatedInPlaceWithoutAutovacuumIsVacuumedWithoutBeingAsked() throws SQLException {
        try (Connection c = SERVICE.dataSource().getConnection();
                Statement st = c.createStatement()) {
            st.execute(
                    "CREATE TABLE schedule_probe (id int PRIMARY KEY, n int NOT NULL) WITH (autovacuum_enabled = false)");
            st.execute("INSERT INTO schedule_probe SELECT i, 0 FROM generate_series(1, 2000) i");
            st.execute("UPDATE schedule_probe SET n = n + 1");
        }
        await().atMost(Duration.ofSeconds(30))
                .until(() -> Sql.count(
                                SERVICE.dataSource(),
                                "SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = 'schedule_probe'")
                        >= 1);
        assertThat(SERVICE.admin()
                        .get("/metrics", null)
                        .json()
                        .path("counters")
                        .path("vacuum.tables.vacuumed")
                        .path("count")
                        .asLong())
                .isPositive();
    }
}
