package dev.sendlog.service.db;

import dev.sendlog.infra.LocalServices;
import dev.sendlog.infra.PostgresHandle;
import dev.sendlog.infra.RedisHandle;
import dev.sendlog.service.config.SendlogConfiguration;
import io.dropwizard.lifecycle.Managed;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Resolves the servers sendlog talks to: those named in the configuration, else the local ones
 * {@link LocalServices} finds or starts (an embedded PostgreSQL and a local redis-server whose files live
 * in {@code localStateDir}). Servers started here are stopped when the service stops.
 */
public final class LocalInfrastructure implements Managed, AutoCloseable {
    private final SendlogConfiguration config;
    private final List<AutoCloseable> startedHere = new ArrayList<>();
    private DatabaseTarget database;
    private String redisUri;

    public LocalInfrastructure(SendlogConfiguration config) {
        this.config = config;
    }

    public synchronized DatabaseTarget database() {
        if (database == null) {
            if (!config.database.url.isBlank()) {
                database = new DatabaseTarget(config.database.url, config.database.user, config.database.password);
            } else {
                PostgresHandle handle = LocalServices.postgres(Path.of(config.localStateDir));
                startedHere.add(handle);
                database = new DatabaseTarget(
                        handle.jdbcUrl(),
                        handle.endpoint().user(),
                        handle.endpoint().password());
            }
        }
        return database;
    }

    /** The send stream's Redis. */
    public synchronized String sendRedisUri() {
        if (!config.redis.sendUri.isBlank()) {
            return config.redis.sendUri;
        }
        if (config.redis.cluster) {
            throw new IllegalStateException("redis.cluster is set: redis.sendUri must name a node of the cluster");
        }
        if (redisUri == null) {
            RedisHandle handle = LocalServices.redis(Path.of(config.localStateDir));
            startedHere.add(handle);
            redisUri = handle.endpoint().uri();
        }
        return redisUri;
    }

    /** The callback stream's Redis: its own when configured, else the send stream's server. */
    public synchronized String callbackRedisUri() {
        return config.redis.callbackUri.isBlank() ? sendRedisUri() : config.redis.callbackUri;
    }

    @Override
    public void stop() throws Exception {
        close();
    }

    @Override
    public synchronized void close() throws Exception {
        Exception failure = null;
        for (int i = startedHere.size() - 1; i >= 0; i--) {
            try {
                startedHere.get(i).close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        startedHere.clear();
        if (failure != null) {
            throw failure;
        }
    }
}
