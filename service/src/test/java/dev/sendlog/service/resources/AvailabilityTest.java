package dev.sendlog.service.resources;

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

/** When the database cannot commit, the client gets 503 with Retry-After and nothing half-written; never a 202. */
class AvailabilityTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness("components", "API,MAINTENANCE");

    private static final String BODY = "{\"to\":\"+4915100000017\",\"body\":\"b\"}";

    @Test
    void aDayWithoutPartitionAnswers503AndWritesNothing() {
        long messages = Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM messages");
        long keys = Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM idempotency_keys");
        SERVICE.clock().advance(Duration.ofDays(40));
        try {
            ApiResponse r = SERVICE.api().post("/v1/messages", "client-a", BODY, "Idempotency-Key", "far-future");
            assertThat(r.status()).isEqualTo(503);
            assertThat(r.header("Retry-After")).isEqualTo("1");
            assertThat(r.contentType()).startsWith("application/problem+json");
            assertThat(r.json().get("detail").asText()).contains("partition");
            assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM messages"))
                    .isEqualTo(messages);
            assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM idempotency_keys"))
                    .isEqualTo(keys);
            ApiResponse health = SERVICE.admin().get("/healthcheck", null);
            assertThat(health.status()).isEqualTo(500);
            assertThat(health.json().get("partitions").get("healthy").asBoolean())
                    .isFalse();
        } finally {
            SERVICE.clock().advance(Duration.ofDays(-40));
        }
        assertThat(SERVICE.api().post("/v1/messages", "client-a", BODY).status())
                .isEqualTo(202);
    }

    @Test
    void anUnreachableDatabaseAnswers503AndServiceRecoversByItself() {
        String db = SERVICE.database().name();
        adminExec("ALTER DATABASE " + db + " ALLOW_CONNECTIONS false");
        try {
            adminExec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + db
                    + "' AND application_name LIKE 'sendlog-%'");
            ApiResponse r = SERVICE.api().post("/v1/messages", "client-a", BODY);
            assertThat(r.status()).as(r.raw()).isEqualTo(503);
            assertThat(r.header("Retry-After")).isNotNull();
            assertThat(r.contentType()).startsWith("application/problem+json");
            // Every check on the maintenance pool waits out its connection timeout now, so one health answer takes
            // seconds.
            await().atMost(Duration.ofSeconds(45)).until(() -> !SERVICE.healthy("database"));
        } finally {
            adminExec("ALTER DATABASE " + db + " ALLOW_CONNECTIONS true");
        }
        // Connections broken during the outage are replaced as they are found; within seconds requests succeed again.
        await().atMost(Duration.ofSeconds(15))
                .until(() ->
                        SERVICE.api().post("/v1/messages", "client-a", BODY).status() == 202);
        await().atMost(Duration.ofSeconds(45)).until(() -> SERVICE.healthy("database"));
    }

    /**
     * A primary that has stepped down (or a standby reached during a failover) takes connections but refuses writes
     * with SQLSTATE 25006: the client gets 503 with Retry-After, nothing is written, and the first write after the
     * switch is a 202 again.
     */
    @Test
    void aServerThatRefusesWritesAnswers503AndWritesNothing() {
        String db = SERVICE.database().name();
        long messages = Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM messages");
        adminExec("ALTER DATABASE " + db + " SET default_transaction_read_only = on");
        try {
            adminExec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + db
                    + "' AND application_name LIKE 'sendlog-%'");
            ApiResponse r = SERVICE.api().post("/v1/messages", "client-a", BODY, "Idempotency-Key", "read-only");
            assertThat(r.status()).as(r.raw()).isEqualTo(503);
            assertThat(r.header("Retry-After")).isNotNull();
            assertThat(r.contentType()).startsWith("application/problem+json");
        } finally {
            adminExec("ALTER DATABASE " + db + " RESET default_transaction_read_only");
            adminExec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + db
                    + "' AND application_name LIKE 'sendlog-%'");
        }
        assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM messages"))
                .isEqualTo(messages);
        await().atMost(Duration.ofSeconds(15))
                .until(() -> SERVICE.api()
                                .post("/v1/messages", "client-a", BODY, "Idempotency-Key", "read-only")
                                .status()
                        == 202);
        assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM messages"))
                .isEqualTo(messages + 1);
    }

    /** Runs a statement from the cluster's admin database (a database cannot refuse its own connections). */
    private static void adminExec(String sql) {
        try (Connection c = SERVICE.database()
                        .endpoint()
                        .connect(SERVICE.database().endpoint().adminDatabase());
                Statement st = c.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }
}
