package dev.sendlog.service.health;

import com.codahale.metrics.health.HealthCheck;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * The queue store takes writes. A Redis at its memory limit with noeviction refuses every write while
 * still answering PING: this check writes (a per-process key with a short expiry), so it fails then.
 */
public final class RedisHealthCheck extends HealthCheck {
    private final StatefulRedisConnection<String, String> connection;
    private final String probeKey;

    public RedisHealthCheck(StatefulRedisConnection<String, String> connection, String probeKey) {
        this.connection = connection;
        this.probeKey = probeKey;
    }

    @Override
    protected Result check() {
        try {
            connection.sync().set(probeKey, Long.toString(System.currentTimeMillis()), SetArgs.Builder.ex(60));
            return Result.healthy("writable");
        } catch (RuntimeException e) {
            return Result.unhealthy("cannot write to Redis: " + e.getMessage());
        }
    }
}
