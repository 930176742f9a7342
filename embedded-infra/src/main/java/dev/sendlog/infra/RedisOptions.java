package dev.sendlog.infra;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * How to run a {@link RedisProcess}.
 *
 * @param port              0 for a free port
 * @param fallBackToFreePort when {@code port} is busy, take a free one instead of failing
 * @param maxMemoryBytes    0 for no limit; otherwise the limit with {@code maxmemory-policy noeviction}
 * @param persistence       false (the default): no RDB snapshots, no AOF, a restart starts empty
 * @param executable        a redis-server binary; empty to find one ({@link RedisBinary})
 * @param clusterNode       run with cluster mode enabled (its cluster state in {@code nodes.conf} in the data folder)
 */
public record RedisOptions(
        Path dataDir,
        int port,
        boolean fallBackToFreePort,
        long maxMemoryBytes,
        boolean persistence,
        Optional<Path> executable,
        boolean clusterNode) {
    public RedisOptions {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(executable, "executable");
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
        if (maxMemoryBytes < 0) {
            throw new IllegalArgumentException("maxMemoryBytes must not be negative: " + maxMemoryBytes);
        }
    }

    /** A free port, no memory limit, no persistence, the binary found on this machine. */
    public static RedisOptions inDirectory(Path dataDir) {
        return new RedisOptions(dataDir, 0, false, 0, false, Optional.empty(), false);
    }

    public RedisOptions withPort(int newPort) {
        return new RedisOptions(dataDir, newPort, false, maxMemoryBytes, persistence, executable, clusterNode);
    }

    /** {@code preferredPort}, or a free port when it is busy. */
    public RedisOptions withPreferredPort(int preferredPort) {
        return new RedisOptions(dataDir, preferredPort, true, maxMemoryBytes, persistence, executable, clusterNode);
    }

    public RedisOptions withMaxMemoryBytes(long bytes) {
        return new RedisOptions(dataDir, port, fallBackToFreePort, bytes, persistence, executable, clusterNode);
    }

    public RedisOptions withPersistence(boolean enabled) {
        return new RedisOptions(dataDir, port, fallBackToFreePort, maxMemoryBytes, enabled, executable, clusterNode);
    }

    public RedisOptions withExecutable(Path redisServer) {
        return new RedisOptions(
                dataDir, port, fallBackToFreePort, maxMemoryBytes, persistence, Optional.of(redisServer), clusterNode);
    }

    /** A node for a Redis Cluster: cluster mode on, no slots until it is given some. */
    public RedisOptions asClusterNode() {
        return new RedisOptions(dataDir, port, fallBackToFreePort, maxMemoryBytes, persistence, executable, true);
    }

    PortChoice portChoice() {
        if (port == 0) {
            return PortChoice.ANY;
        }
        return fallBackToFreePort ? PortChoice.preferring(port) : PortChoice.exactly(port);
    }
}
