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

/** The maintenance component refreshes the statistics on its own, every {@code partitions.analyzeEvery}. */
class StatisticsRefreshScheduleTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness("components", "MAINTENANCE", "partitions.analyzeEvery", "1s");

    @Test
    void aPartitionThatFillsIsAnalyzedWithoutBeingAsked() throws SQLException {
        String partition;
        try (Connection c = SERVICE.dataSource().getConnection(); Statement st = c.createStatement()) {
            StatisticsRefreshTest.withoutAutovacuum(st);
            partition = StatisticsRefreshTest.insertMessages(SERVICE.dataSource(), st, 2_000);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> Sql.count(SERVICE.dataSource(),
                "SELECT analyze_count FROM pg_stat_user_tables WHERE relname = '" + partition + "'") >= 1);
        assertThat(SERVICE.admin().get("/metrics", null).json().path("counters").path("statistics.tables.analyzed")
                .path("count").asLong()).isPositive();
    }
}
