package dev.sendlog.service.health;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheck;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;

/**
 * Alarms on messages going DEAD or UNKNOWN, and on parked provider input, faster than a threshold per minute (what
 * this process recorded in the last minute, from its counters).
 */
public final class FailureRateHealthCheck extends HealthCheck {
    private final MetricRegistry metrics;
    private final Map<String, Integer> limitsPerMinute;
    private final Deque<Sample> samples = new ArrayDeque<>();

    private record Sample(long atMs, long dead, long unknown, long parked) {
    }

    public FailureRateHealthCheck(MetricRegistry metrics, int maxDead, int maxUnknown, int maxParked) {
        this.metrics = metrics;
        this.limitsPerMinute = Map.of("dead", maxDead, "unknown", maxUnknown, "parked", maxParked);
    }

    @Override
    protected synchronized Result check() {
        long now = System.currentTimeMillis();
        Sample current = new Sample(now, count("messages.dead"), count("messages.unknown"), parked());
        samples.addLast(current);
        while (samples.size() > 1 && samples.peekFirst().atMs() < now - 60_000) {
            samples.removeFirst();
        }
        Sample first = samples.peekFirst();
        long dead = current.dead() - first.dead();
        long unknown = current.unknown() - first.unknown();
        long parked = current.parked() - first.parked();
        StringBuilder alarms = new StringBuilder();
        alarm(alarms, "DEAD", dead, limitsPerMinute.get("dead"));
        alarm(alarms, "UNKNOWN", unknown, limitsPerMinute.get("unknown"));
        alarm(alarms, "parked callbacks", parked, limitsPerMinute.get("parked"));
        String summary = "last minute: " + dead + " DEAD, " + unknown + " UNKNOWN, " + parked + " parked";
        return alarms.isEmpty() ? Result.healthy(summary) : Result.unhealthy(alarms.toString().trim() + " (" + summary + ")");
    }

    private static void alarm(StringBuilder alarms, String what, long count, int limit) {
        if (count > limit) {
            alarms.append(what).append(" rising: ").append(count).append(" in the last minute, limit ").append(limit).append(". ");
        }
    }

    private long count(String name) {
        Counter c = metrics.getCounters().get(name);
        return c == null ? 0 : c.getCount();
    }

    private long parked() {
        return metrics.getCounters().entrySet().stream().filter(e -> e.getKey().startsWith("callbacks.parked."))
                .mapToLong(e -> e.getValue().getCount()).sum();
    }
}
