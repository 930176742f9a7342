package dev.sendlog.infra;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Waits until a freshly started redis-server answers, and checks that the server answering is the one we
 * started: if another server already listens on the port, ours fails to bind and exits, but until it has
 * exited the other one would answer PING and be taken for ours.
 */
final class RedisPing {
    private static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(1);

    private RedisPing() {}

    static void await(RedisEndpoint endpoint, Process process, Duration timeout, Path logFile) {
        RedisURI uri = RedisURI.builder()
                .withHost(endpoint.host())
                .withPort(endpoint.port())
                .withTimeout(ATTEMPT_TIMEOUT)
                .build();
        RedisClient client = RedisClient.create(uri);
        client.setOptions(ClientOptions.builder()
                .autoReconnect(false)
                .socketOptions(
                        SocketOptions.builder().connectTimeout(ATTEMPT_TIMEOUT).build())
                .build());
        try {
            Readiness.await("redis-server on port " + endpoint.port(), process, timeout, logFile, () -> {
                try (StatefulRedisConnection<String, String> connection = client.connect()) {
                    long answering = processId(connection.sync().info("server"));
                    if (answering != process.pid()) {
                        throw new IllegalStateException("port " + endpoint.port() + " is answered by another"
                                + " redis-server (pid " + answering + "), not ours (pid " + process.pid() + ")");
                    }
                }
            });
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    /** The {@code process_id} line of {@code INFO server}; -1 when it has none. */
    static long processId(String info) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("process_id:")) {
                return Long.parseLong(line.substring("process_id:".length()).trim());
            }
        }
        return -1;
    }
}
