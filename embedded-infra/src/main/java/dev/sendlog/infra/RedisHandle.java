package dev.sendlog.infra;

import java.util.Optional;

/**
 * The Redis that {@link LocalServices} chose. Closing it stops the server only if it was started
 * here; a server that was already running is left alone.
 */
public final class RedisHandle implements AutoCloseable {
    private final RedisEndpoint endpoint;
    private final Optional<RedisProcess> startedHere;
    private final String reason;

    RedisHandle(RedisEndpoint endpoint, Optional<RedisProcess> startedHere, String reason) {
        this.endpoint = endpoint;
        this.startedHere = startedHere;
        this.reason = reason;
    }

    public RedisEndpoint endpoint() {
        return endpoint;
    }

    public boolean startedHere() {
        return startedHere.isPresent();
    }

    /** Why this server was chosen, for logs and health output. */
    public String reason() {
        return reason;
    }

    @Override
    public void close() {
        startedHere.ifPresent(RedisProcess::close);
    }
}
