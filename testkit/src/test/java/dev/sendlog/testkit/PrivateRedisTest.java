package dev.sendlog.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sendlog.infra.Reachability;
import dev.sendlog.infra.RedisEndpoint;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class PrivateRedisTest {
    @RegisterExtension
    static final PrivateRedis REDIS = new PrivateRedis();

    @Test
    void killedAndRestartedOnTheSamePortItHasLostItsData() {
        RedisEndpoint endpoint = REDIS.endpoint();
        withRedis(endpoint, Duration.ofSeconds(5), redis -> redis.set("survivor?", "no"));
        long firstPid = REDIS.process().pid();

        REDIS.process().kill();
        assertThat(REDIS.process().isRunning()).isFalse();
        assertThat(Reachability.isOpen(endpoint.host(), endpoint.port(), Duration.ofMillis(500)))
                .isFalse();

        REDIS.process().restart();
        assertThat(REDIS.endpoint()).isEqualTo(endpoint);
        assertThat(REDIS.process().pid()).isNotEqualTo(firstPid);
        withRedis(
                endpoint,
                Duration.ofSeconds(5),
                redis -> assertThat(redis.get("survivor?")).isNull());
    }

    @Test
    void whilePausedCommandsTimeOutAndAfterResumeTheyWork() {
        RedisClient client = RedisClient.create(RedisURI.builder()
                .withHost(REDIS.endpoint().host())
                .withPort(REDIS.endpoint().port())
                .withTimeout(Duration.ofMillis(300))
                .build());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            redis.set("k", "before");

            REDIS.process().pause();
            try {
                assertThatThrownBy(() -> redis.get("k")).isInstanceOf(RedisCommandTimeoutException.class);
            } finally {
                REDIS.process().resume();
            }

            await().atMost(Duration.ofSeconds(5))
                    .untilAsserted(() -> assertThat(redis.get("k")).isEqualTo("before"));
        } finally {
            client.shutdown();
        }
    }

    @Test
    void aSmallMaxmemoryRefusesWritesOnceFull() {
        try (PrivateRedis small =
                PrivateRedis.withMaxMemoryBytes(4L * 1024 * 1024).start()) {
            String kilobyte = "x".repeat(1024);
            withRedis(
                    small.endpoint(),
                    Duration.ofSeconds(5),
                    redis -> assertThatThrownBy(() -> {
                                for (int i = 0; i < 100_000; i++) {
                                    redis.set("fill:" + i, kilobyte);
                                }
                            })
                            .isInstanceOf(RedisCommandExecutionException.class)
                            .hasMessageContaining("OOM"));
        }
    }

    private static void withRedis(
            RedisEndpoint endpoint,
            Duration timeout,
            java.util.function.Consumer<RedisCommands<String, String>> action) {
        RedisClient client = RedisClient.create(RedisURI.builder()
                .withHost(endpoint.host())
                .withPort(endpoint.port())
                .withTimeout(timeout)
                .build());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            action.accept(connection.sync());
        } finally {
            client.shutdown();
        }
    }
}
