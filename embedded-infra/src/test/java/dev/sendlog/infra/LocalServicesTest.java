package dev.sendlog.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Uses free ports in place of 5432/6379 so that the shared servers are never touched. */
class LocalServicesTest {
    private Path stateDir;

    @BeforeEach
    void createStateDir() {
        stateDir = Directories.createTemp("local-services-test-");
    }

    @AfterEach
    void deleteStateDir() {
        Directories.deleteRecursively(stateDir);
    }

    @Test
    void startsAnEmbeddedPostgresWhenNothingListensAndUsesAServerThatDoes() throws SQLException {
        int nothingThere = FreePorts.free();
        int preferredPort = FreePorts.free();
        try (PostgresHandle started =
                LocalServices.postgres(stateDir, Map.of("wal_level", "logical"), nothingThere, preferredPort)) {
            assertThat(started.startedHere()).isTrue();
            assertThat(started.endpoint().port()).isEqualTo(preferredPort);
            assertThat(started.reason()).contains("embedded");
            assertThat(stateDir.resolve("postgres/pgdata/PG_VERSION")).exists();
            assertThat(queryString(started.endpoint(), started.database(), "SELECT current_database()"))
                    .isEqualTo("sendlog");
            assertThat(queryString(started.endpoint(), "postgres", "SHOW wal_level"))
                    .isEqualTo("logical");
            assertThat(queryString(started.endpoint(), "postgres", "SHOW max_connections"))
                    .isEqualTo("200");

            try (PostgresHandle found =
                    LocalServices.postgres(stateDir.resolve("unused"), Map.of(), preferredPort, FreePorts.free())) {
                assertThat(found.startedHere()).isFalse();
                assertThat(found.endpoint().port()).isEqualTo(preferredPort);
                assertThat(found.jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:" + preferredPort + "/sendlog");
                assertThat(stateDir.resolve("unused")).doesNotExist();
            }
            // Closing the handle of a server found running left it alone.
            assertThat(queryString(started.endpoint(), "sendlog", "SELECT 'still up'"))
                    .isEqualTo("still up");
        }
    }

    @Test
    void startsALocalRedisWhenNothingListensAndUsesAServerThatDoes() {
        int nothingThere = FreePorts.free();
        int preferredPort = FreePorts.free();
        try (RedisHandle started = LocalServices.redis(stateDir, nothingThere, preferredPort)) {
            assertThat(started.startedHere()).isTrue();
            assertThat(started.endpoint().port()).isEqualTo(preferredPort);
            assertThat(stateDir.resolve("redis/redis.log")).exists();
            try (RedisHandle found = LocalServices.redis(stateDir, preferredPort, FreePorts.free())) {
                assertThat(found.startedHere()).isFalse();
                assertThat(found.endpoint()).isEqualTo(started.endpoint());
            }
            assertThat(RedisProcessTest.set(started.endpoint(), "k", "v")).isEqualTo("OK");
        }
    }

    private static String queryString(PostgresEndpoint endpoint, String database, String sql) throws SQLException {
        try (Connection connection = endpoint.connect(database);
                Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery(sql)) {
            result.next();
            return result.getString(1);
        }
    }
}
