package dev.sendlog.service.queue;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The Redis client of one job type (each job type has its own, and may point at its own server).
 * Commands fail at once while disconnected instead of piling up in memory: the log in PostgreSQL is
 * the buffer, not the client.
 */
public final class RedisConnections implements AutoCloseable {
    private final RedisClient client;
    private final List<StatefulRedisConnection<String, String>> open = new ArrayList<>();
    private final String uri;

    public RedisConnections(String uri, Duration commandTimeout) {
        this.uri = uri;
        this.client = RedisClient.create(RedisURI.create(uri));
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .requestQueueSize(100_000)
                .socketOptions(SocketOptions.builder().connectTimeout(Duration.ofSeconds(2)).keepAlive(true).build())
                .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
                .build());
    }

    /** A new connection of its own (a blocking reader or a pipelining publisher must not share one). */
    public synchronized StatefulRedisConnection<String, String> connect() {
        StatefulRedisConnection<String, String> c = client.connect();
        open.add(c);
        return c;
    }

    public String uri() {
        return uri;
    }

    @Override
    public synchronized void close() {
        open.forEach(StatefulRedisConnection::close);
        open.clear();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
