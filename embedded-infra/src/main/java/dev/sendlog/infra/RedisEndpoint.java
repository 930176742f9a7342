package dev.sendlog.infra;

import java.net.URI;
import java.util.Objects;

/** Where a Redis server listens. */
public record RedisEndpoint(String host, int port) {
    public RedisEndpoint {
        Objects.requireNonNull(host, "host");
        if (port <= 0 || port > 65_535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
    }

    /** Parses {@code redis://host:port} (the port defaults to 6379). */
    public static RedisEndpoint parse(String uri) {
        URI parsed = URI.create(uri);
        if (!"redis".equals(parsed.getScheme()) || parsed.getHost() == null) {
            throw new IllegalArgumentException("expected redis://host:port, got " + uri);
        }
        return new RedisEndpoint(parsed.getHost(), parsed.getPort() == -1 ? 6379 : parsed.getPort());
    }

    public String uri() {
        return "redis://" + host + ":" + port;
    }
}
