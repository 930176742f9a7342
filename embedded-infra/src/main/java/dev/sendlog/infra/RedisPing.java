package dev.sendlog.infra;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Path;
import java.time.Duration;

/** Waits until a freshly started redis-server answers PING with PONG. */
final class RedisPing {
    private static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(1);

    private RedisPing() {
    }

    static void await(RedisEndpoint endpoint, Process process, Duration timeout, Path logFile) {
        RedisURI uri = RedisURI.builder().withHost(endpoint.host()).withPort(endpoint.port())
                .withTimeout(ATTEMPT_TIMEOUT).build();
        RedisClient client = RedisClient.create(uri);
        client.setOptions(ClientOptions.builder()
                .autoReconnect(false)
                .socketOptions(SocketOptions.builder().connectTimeout(ATTEMPT_TIMEOUT).build())
                .build());
        try {
            Readiness.await("redis-server on port " + endpoint.port(), process, timeout, logFile, () -> {
                try (StatefulRedisConnection<String, String> connection = client.connect()) {
                    String answer = connection.sync().ping();
                    if (!"PONG".equals(answer)) {
                        throw new IllegalStateException("PING answered " + answer);
                    }
                }
            });
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }
}
