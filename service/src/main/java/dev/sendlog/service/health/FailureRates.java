package dev.sendlog.service.health;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How many messages went DEAD or UNKNOWN, and how many callbacks were parked, in this process in the last minute (by
 * the application's clock), against a limit each. These are alarms for a person, not the node's health (API.md, admin
 * port): one provider using a new status word must not take every node out of a load balancer. Shown on
 * {@code GET /alarms} and as gauges ({@code alarms.<name>.last.minute}, {@code alarms.<name>.raised}).
 *
 * <p>The counters are sampled every second ({@link #sample()}, scheduled) and on every read; the rate is the counter
 * now less the newest sample at least a minute old, so it does not depend on how often anyone reads it.
 */
public final class FailureRates {
    static final Duration WINDOW = Duration.ofMinutes(1);
    /** Bounds the samples when the clock stands still (tests): a sample a second keeps ten minutes. */
    private static final int MAX_SAMPLES = 600;

    /** One alarm as read now. */
    public record Alarm(long lastMinute, int limit, boolean raised) {}

    private final MetricRegistry metrics;
    private final InstantSource clock;
    private final Map<String, Integer> limits = new LinkedHashMap<>();
    private final Deque<Sample> samples = new ArrayDeque<>();

    private record Sample(Instant at, long dead, long unknown, long parked) {
        long of(String name) {
            return switch (name) {
                case "dead" -> dead;
                case "unknown" -> unknown;
                default -> parked;
            };
        }
    }

    public FailureRates(
            MetricRegistry metrics,
            InstantSource clock,
            int maxDeadPerMinute,
            int maxUnknownPerMinute,
            int maxParkedPerMinute) {
        this.metrics = metrics;
        this.clock = clock;
        limits.put("dead", maxDeadPerMinute);
        limits.put("unknown", maxUnknownPerMinute);
        limits.put("parked", maxParkedPerMinute);
        sample();
        for (String name : limits.keySet()) {
            metrics.gauge("alarms." + name + ".last.minute", () ->
                    (Gauge<Long>) () -> alarms().get(name).lastMinute());
            metrics.gauge("alarms." + name + ".raised", () ->
                    (Gauge<Integer>) () -> alarms().get(name).raised() ? 1 : 0);
        }
    }

    /** Takes a sample of the counters now and forgets those older than the newest one a window back. */
    public synchronized void sample() {
        Instant now = clock.instant();
        samples.addLast(new Sample(now, count("messages.dead"), count("messages.unknown"), parked()));
        Instant windowStart = now.minus(WINDOW);
        while (samples.size() > 2 && !second().at().isAfter(windowStart)) {
            samples.removeFirst();
        }
        while (samples.size() > MAX_SAMPLES) {
            samples.removeFirst();
        }
    }

    private Sample second() {
        var it = samples.iterator();
        it.next();
        return it.next();
    }

    /** Each alarm (dead, unknown, parked), in that order, from a sample taken now. */
    public synchronized Map<String, Alarm> alarms() {
        sample();
        Sample first = samples.peekFirst();
        Sample last = samples.peekLast();
        Map<String, Alarm> alarms = new LinkedHashMap<>();
        limits.forEach((name, limit) -> {
            long n = last.of(name) - first.of(name);
            alarms.put(name, new Alarm(n, limit, n > limit));
        });
        return alarms;
    }

    private long count(String name) {
        Counter c = metrics.getCounters().get(name);
        return c == null ? 0 : c.getCount();
    }

    private long parked() {
        return metrics.getCounters().entrySet().stream()
                .filter(e -> e.getKey().startsWith("callbacks.parked."))
                .mapToLong(e -> e.getValue().getCount())
                .sum();
    }
}
