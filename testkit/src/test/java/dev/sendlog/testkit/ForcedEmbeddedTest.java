package dev.sendlog.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * Runs in its own surefire execution with {@code -Dsendlog.test.forceEmbedded=true} (see the pom):
 * the harness must skip the shared servers and start its own.
 */
class ForcedEmbeddedTest {
    @Test
    void theSwitchSelectsAnEmbeddedPostgresAndATestDatabaseWorksOnIt() throws SQLException {
        assertThat(Boolean.getBoolean("sendlog.test.forceEmbedded"))
                .as("run by the forced-embedded execution")
                .isTrue();
        assertThat(TestPostgres.source()).isEqualTo(ServerSource.EMBEDDED);
        assertThat(TestPostgres.endpoint().port()).isNotEqualTo(5432);

        try (TestDatabase database = TestDatabase.create()) {
            assertThat(TestDatabaseTest.relationKind(database, "message_events"))
                    .isEqualTo("p");
            assertThat(database.jdbcUrl())
                    .contains(":" + TestPostgres.endpoint().port() + "/");
        }
    }

    @Test
    void theSwitchSelectsALocalRedisProcess() {
        assertThat(TestRedis.source()).isEqualTo(ServerSource.EMBEDDED);
        assertThat(TestRedis.endpoint().port()).isNotEqualTo(6379);
        RedisClient client = RedisClient.create(TestRedis.endpoint().uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            assertThat(connection.sync().ping()).isEqualTo("PONG");
        } finally {
            client.shutdown();
        }
    }
}
