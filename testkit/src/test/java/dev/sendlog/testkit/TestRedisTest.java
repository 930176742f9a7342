package dev.sendlog.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sendlog.infra.RedisEndpoint;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class TestRedisTest {
    @RegisterExtension
    static final TestRedisExtension REDIS = new TestRedisExtension();

    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;

    @BeforeAll
    static void connect() {
        client = RedisClient.create(REDIS.endpoint().uri());
        connection = client.connect();
    }

    @AfterAll
    static void disconnect() {
        connection.close();
        client.shutdown();
    }

    @Test
    void prefixesAreFreshAndShaped() {
        assertThat(TestRedis.prefix()).matches("t:[0-9a-f]{16}:").isNotEqualTo(TestRedis.prefix());
        assertThat(REDIS.prefix()).matches("t:[0-9a-f]{16}:");
        assertThat(REDIS.key("a")).isEqualTo(REDIS.prefix() + "a");
    }

    @Test
    void deleteKeysRemovesExactlyThePrefixedKeys() {
        RedisCommands<String, String> redis = connection.sync();
        String mine = REDIS.key("mine:");
        String neighbour = REDIS.key("other:");
        // More keys than one SCAN page, so that the cursor has to be followed.
        Map<String, String> mineKeys = keys(mine, 2_500);
        Map<String, String> neighbourKeys = keys(neighbour, 10);
        redis.mset(mineKeys);
        redis.mset(neighbourKeys);
        redis.set(REDIS.key("mine"), "no colon: not under the prefix");

        long deleted = TestRedis.deleteKeys(REDIS.endpoint(), mine);

        assertThat(deleted).isEqualTo(2_500);
        assertThat(redis.exists(mineKeys.keySet().toArray(String[]::new))).isZero();
        assertThat(redis.exists(neighbourKeys.keySet().toArray(String[]::new))).isEqualTo(10);
        assertThat(redis.exists(REDIS.key("mine"))).isEqualTo(1);
    }

    @Test
    void globCharactersInThePrefixAreTakenLiterally() {
        RedisCommands<String, String> redis = connection.sync();
        String globby = REDIS.key("[a]*?:");
        redis.set(globby + "1", "v");
        redis.set(REDIS.key("a-x:1"), "must survive");

        assertThat(TestRedis.deleteKeys(REDIS.endpoint(), globby)).isEqualTo(1);
        assertThat(redis.exists(REDIS.key("a-x:1"))).isEqualTo(1);
    }

    @Test
    void aBlankPrefixIsRefused() {
        RedisEndpoint endpoint = REDIS.endpoint();
        assertThatThrownBy(() -> TestRedis.deleteKeys(endpoint, " ")).isInstanceOf(IllegalArgumentException.class);
    }

    private static Map<String, String> keys(String prefix, int count) {
        Map<String, String> keys = new HashMap<>();
        for (int i = 0; i < count; i++) {
            keys.put(prefix + i, "v" + i);
        }
        return keys;
    }
}
