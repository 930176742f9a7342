package dev.sendlog.service.health;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheck;
import dev.sendlog.service.queue.QueueConnection;
import io.lettuce.core.SetArgs;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A queue store takes writes and has room. A Redis at its memory limit with noeviction refuses every write while
 * still answering PING: this check writes (a per-process key with a short expiry), so it fails then. Memory use
 * is exported as a percentage of maxmemory, warned about and failed on at the configured thresholds.
 */
public final class RedisHealthCheck extends HealthCheck {
    private final QueueConnection connection;
    private final String probeKey;
    private final int warnPercent;
    private final int failPercent;
    private final AtomicLong memoryPercent = new AtomicLong(-1);

    public RedisHealthCheck(
            QueueConnection connection,
            String probeKey,
            int warnPercent,
            int failPercent,
            MetricRegistry metrics,
            String jobType) {
        this.connection = connection;
        this.probeKey = probeKey;
        this.warnPercent = warnPercent;
        this.failPercent = failPercent;
        metrics.registerGauge("redis." + jobType + ".memory.percent", () -> {
            refreshMemory();
            return memoryPercent.get();
        });
    }

    @Override
    protected Result check() {
        long percent = refreshMemory();
        try {
            connection.sync().set(probeKey, Long.toString(System.currentTimeMillis()), SetArgs.Builder.ex(60));
        } catch (RuntimeException e) {
            return Result.unhealthy("cannot write to Redis (memory " + describe(percent) + "): " + e.getMessage());
        }
        if (percent >= failPercent) {
            return Result.unhealthy("Redis memory at " + percent + "% of maxmemory (fails at " + failPercent + "%)");
        }
        if (percent >= warnPercent) {
            return Result.healthy(
                    "WARNING: Redis memory at " + percent + "% of maxmemory (warns at " + warnPercent + "%)");
        }
        return Result.healthy("writable, memory " + describe(percent));
    }

    private long refreshMemory() {
        try {
            // On a cluster, the node that holds the job type's keys (they share one hash tag, as the probe key does).
            String info = connection.nodeOf(probeKey).info("memory");
            long used = field(info, "used_memory");
            long max = field(info, "maxmemory");
            memoryPercent.set(max <= 0 ? 0 : Math.round(100.0 * used / max));
            return max <= 0 ? -1 : memoryPercent.get();
        } catch (RuntimeException e) {
            return memoryPercent.get();
        }
    }

    private static String describe(long percent) {
        return percent < 0 ? "unbounded (no maxmemory set)" : percent + "% of maxmemory";
    }

    private static long field(String info, String name) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return Long.parseLong(line.substring(name.length() + 1).trim());
            }
        }
        return -1;
    }
}
