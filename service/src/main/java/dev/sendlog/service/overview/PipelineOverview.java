package dev.sendlog.service.overview;

import com.codahale.metrics.health.HealthCheckRegistry;
import dev.sendlog.service.health.FailureRates;
import dev.sendlog.service.queue.QueueConnection;
import dev.sendlog.service.stats.Tallies;
import dev.sendlog.service.webhooks.WebhookDeliveries;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * The console's pipeline view ({@code GET /v1/admin/overview}): where messages are now, how fast they move and how long
 * each stage takes, across every process of the pipeline, cheap enough to poll every few seconds. Nothing here scans
 * the log: counts now come from bounded index reads (the work past each shard's publish cursor, at most {@link
 * #WAITING_CAP} per shard), the Redis streams' own bookkeeping (XINFO GROUPS: entries not read yet, entries read and
 * not acknowledged), the partial index of owed webhook deliveries, and the per-minute {@link Tallies} every process
 * writes to Redis; the health checks and alarms are this process's. One answer is kept for {@link #CACHE_MS}, so many
 * open consoles cost what one does.
 */
public final class PipelineOverview {
    /** The minutes of history shown. */
    public static final int MINUTES = 60;
    /** The minutes a rate is taken over. */
    static final int RATE_MINUTES = 5;
    /** Work counted past one shard's cursor at most: the count says "at least" beyond it. */
    static final int WAITING_CAP = 1_000;

    static final long CACHE_MS = 2_000;

    /** A Redis stream and its consumer group, whose depth is shown. */
    public record Stream(QueueConnection connection, String key, String group) {}

    /** One stage of a message's life: how many are in it now, the rate in, and its time (p50, p99 of the last minute). */
    public record Stage(
            String name,
            String label,
            Long now,
            boolean atLeast,
            boolean approximate,
            double perSecond,
            Double p50Ms,
            Double p99Ms) {}

    public record Check(String name, boolean healthy, boolean alarm, String message) {}

    /** The whole answer; series are per minute, oldest first, the last one the minute now running. */
    public record Overview(
            Instant at,
            int minutes,
            List<Long> minuteStarts,
            List<Stage> stages,
            Map<String, List<Long>> throughput,
            Map<String, List<Double>> latencyP50,
            Map<String, List<Double>> latencyP99,
            Map<String, Map<String, Long>> gateways,
            Map<String, Map<String, Long>> tenants,
            List<Check> health,
            Map<String, FailureRates.Alarm> alarms) {}

    private final QueueConnection stats;
    private final String prefix;
    private final DSLContext dsl;
    private final List<Stream> sendStreams;
    private final Stream callbackStream;
    private final WebhookDeliveries webhooks;
    private final HealthCheckRegistry health;
    private final Supplier<Map<String, FailureRates.Alarm>> alarms;
    private final InstantSource clock;
    private Overview cached;
    private long cachedAtMs;

    public PipelineOverview(
            QueueConnection stats,
            String prefix,
            DSLContext dsl,
            List<Stream> sendStreams,
            Stream callbackStream,
            WebhookDeliveries webhooks,
            HealthCheckRegistry health,
            Supplier<Map<String, FailureRates.Alarm>> alarms,
            InstantSource clock) {
        this.stats = stats;
        this.prefix = prefix;
        this.dsl = dsl;
        this.sendStreams = List.copyOf(sendStreams);
        this.callbackStream = callbackStream;
        this.webhooks = webhooks;
        this.health = health;
        this.alarms = alarms;
        this.clock = clock;
    }

    public synchronized Overview get() {
        long nowMs = clock.millis();
        if (cached == null || nowMs - cachedAtMs >= CACHE_MS) {
            cached = compute(nowMs);
            cachedAtMs = nowMs;
        }
        return cached;
    }

    private Overview compute(long nowMs) {
        long current = nowMs / 60_000;
        List<Long> minutes = new ArrayList<>();
        for (long m = current - MINUTES + 1; m <= current; m++) {
            minutes.add(m);
        }
        List<Map<String, String>> counts = new ArrayList<>();
        List<Map<String, String>> timings = new ArrayList<>();
        readMinutes(minutes, counts, timings);

        Map<String, List<Long>> throughput = new LinkedHashMap<>();
        for (Tallies.Kind kind : Tallies.Kind.values()) {
            throughput.put(kind.name(), new ArrayList<>());
        }
        Map<String, Map<String, Long>> gateways = new TreeMap<>();
        Map<String, Map<String, Long>> tenants = new TreeMap<>();
        for (Map<String, String> minute : counts) {
            Map<String, Long> perKind = new LinkedHashMap<>();
            minute.forEach((field, value) -> {
                // kind|gateway|tenant|process: every process's totals are added up.
                String[] parts = field.split("\\|", 4);
                if (parts.length != 4) {
                    return;
                }
                long n = parse(value);
                perKind.merge(parts[0], n, Long::sum);
                if (!Tallies.NONE.equals(parts[1])) {
                    gateways.computeIfAbsent(parts[1], g -> zeroes()).merge(parts[0], n, Long::sum);
                }
                if (!Tallies.NONE.equals(parts[2])) {
                    tenants.computeIfAbsent(parts[2], t -> zeroes()).merge(parts[0], n, Long::sum);
                }
            });
            throughput.forEach((kind, series) -> series.add(perKind.getOrDefault(kind, 0L)));
        }

        Map<String, List<Double>> p50 = new LinkedHashMap<>();
        Map<String, List<Double>> p99 = new LinkedHashMap<>();
        for (String stage : Tallies.TIMED_STAGES) {
            p50.put(stage, new ArrayList<>());
            p99.put(stage, new ArrayList<>());
        }
        for (Map<String, String> minute : timings) {
            Map<String, double[]> merged = mergeTimings(minute);
            for (String stage : Tallies.TIMED_STAGES) {
                double[] m = merged.get(stage);
                p50.get(stage).add(m == null || m[0] == 0 ? null : Math.round(m[1] / m[0] * 100) / 100.0);
                p99.get(stage).add(m == null ? null : m[2]);
            }
        }

        double rateSeconds = RATE_MINUTES * 60 - 60 + (nowMs % 60_000) / 1000.0;
        List<Stage> stages = new ArrayList<>();
        long[] waiting = waitingToPublish();
        long sent = sum(throughput.get("SENT"), MINUTES);
        long left = sum(throughput.get("DELIVERED"), MINUTES)
                + sum(throughput.get("UNDELIVERED"), MINUTES)
                + sum(throughput.get("UNKNOWN"), MINUTES)
                + sum(throughput.get("EXPIRED"), MINUTES);
        long[] send = depth(sendStreams);
        long[] callbacks = callbackStream == null ? new long[] {-1, -1} : depth(List.of(callbackStream));
        WebhookDeliveries.Backlog owed = webhooks.backlog();
        stages.add(stage(
                "accepted",
                "Accepted, waiting to be published",
                waiting[0],
                waiting[1] > 0,
                false,
                rate(throughput, rateSeconds, "ACCEPTED"),
                p50,
                p99,
                "accept.commit"));
        stages.add(stage(
                "send-stream",
                "In the send streams, not read yet",
                send[0],
                false,
                false,
                rate(throughput, rateSeconds, "PUBLISHED"),
                p50,
                p99,
                "send.queue.wait"));
        stages.add(stage(
                "at-provider",
                "At a send worker: claimed, with the provider",
                send[1],
                false,
                false,
                rate(throughput, rateSeconds, "SENT"),
                p50,
                p99,
                "send.provider"));
        stages.add(stage(
                "awaiting-receipt",
                "Sent in the last hour, no final status yet",
                Math.max(0, sent - left),
                false,
                true,
                rate(throughput, rateSeconds, "DELIVERED", "UNDELIVERED"),
                p50,
                p99,
                null));
        stages.add(stage(
                "callbacks",
                "Callbacks received, not matched yet",
                callbacks[0] < 0 ? null : callbacks[0] + callbacks[1],
                false,
                false,
                rate(throughput, rateSeconds, "DELIVERED", "UNDELIVERED", "PARKED"),
                p50,
                p99,
                "callbacks.record.commit"));
        stages.add(new Stage(
                "webhooks-owed",
                owed.oldestOwedSince() == null
                        ? "Status webhooks owed"
                        : "Status webhooks owed, the oldest since " + owed.oldestOwedSince(),
                owed.owed(),
                false,
                false,
                0,
                null,
                null));

        List<Check> checks = new ArrayList<>();
        health.runHealthChecks()
                .forEach((name, result) -> checks.add(new Check(
                        name,
                        result.isHealthy(),
                        Boolean.TRUE.equals(
                                result.getDetails() == null
                                        ? null
                                        : result.getDetails().get("alarmsRaised")),
                        result.getMessage() == null ? "" : result.getMessage())));
        return new Overview(
                Instant.ofEpochMilli(nowMs),
                MINUTES,
                minutes.stream().map(m -> m * 60).toList(),
                stages,
                throughput,
                p50,
                p99,
                gateways,
                tenants,
                checks,
                alarms.get());
    }

    private static Map<String, Long> zeroes() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (Tallies.Kind kind : Tallies.Kind.values()) {
            m.put(kind.name(), 0L);
        }
        return m;
    }

    private static Stage stage(
            String name,
            String label,
            Long now,
            boolean atLeast,
            boolean approximate,
            double perSecond,
            Map<String, List<Double>> p50,
            Map<String, List<Double>> p99,
            String timer) {
        Double a = timer == null ? null : p50.get(timer).getLast();
        Double b = timer == null ? null : p99.get(timer).getLast();
        return new Stage(name, label, now, atLeast, approximate, Math.round(perSecond * 100) / 100.0, a, b);
    }

    private static double rate(Map<String, List<Long>> throughput, double seconds, String... kinds) {
        long n = 0;
        for (String kind : kinds) {
            n += sum(throughput.get(kind), RATE_MINUTES);
        }
        return seconds <= 0 ? 0 : n / seconds;
    }

    /** The last {@code minutes} of a series. */
    private static long sum(List<Long> series, int minutes) {
        long n = 0;
        for (int i = Math.max(0, series.size() - minutes); i < series.size(); i++) {
            n += series.get(i);
        }
        return n;
    }

    /** Per stage: total count, count-weighted sum of p50 (a mean of medians: an estimate), highest p99 (a bound). */
    private static Map<String, double[]> mergeTimings(Map<String, String> minute) {
        Map<String, double[]> merged = new LinkedHashMap<>();
        minute.forEach((field, value) -> {
            int bar = field.indexOf('|');
            String[] v = value.split(" ");
            if (bar < 0 || v.length != 3) {
                return;
            }
            try {
                double count = Double.parseDouble(v[0]);
                double median = Double.parseDouble(v[1]);
                double high = Double.parseDouble(v[2]);
                double[] m = merged.computeIfAbsent(field.substring(0, bar), s -> new double[3]);
                m[0] += count;
                m[1] += count * median;
                m[2] = Math.max(m[2], high);
            } catch (NumberFormatException e) {
                // A field this version does not write: not shown.
            }
        });
        return merged;
    }

    private void readMinutes(List<Long> minutes, List<Map<String, String>> counts, List<Map<String, String>> timings) {
        RedisClusterAsyncCommands<String, String> async = stats.async();
        List<RedisFuture<Map<String, String>>> c = new ArrayList<>();
        List<RedisFuture<Map<String, String>>> t = new ArrayList<>();
        for (long m : minutes) {
            c.add(async.hgetall(Tallies.countsKey(prefix, m)));
            t.add(async.hgetall(Tallies.timingsKey(prefix, m)));
        }
        for (int i = 0; i < minutes.size(); i++) {
            counts.add(await(c.get(i)));
            timings.add(await(t.get(i)));
        }
    }

    private static Map<String, String> await(RedisFuture<Map<String, String>> f) {
        try {
            Map<String, String> m = f.get(5, TimeUnit.SECONDS);
            return m == null ? Map.of() : m;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Map.of();
        } catch (Exception e) {
            return Map.of(); // Redis down: the minute shows nothing; the health checks say why
        }
    }

    /**
     * Accepted messages (and re-driven work) past each shard's publish cursor, at most {@link #WAITING_CAP} per shard:
     * index range reads on {@code messages_work} and {@code message_events_work}. Returns the count and how many
     * shards reached the cap (then the count is a floor).
     */
    private long[] waitingToPublish() {
        var row = dsl.fetchOne(DSL.resultQuery("""
                SELECT coalesce(sum(w.n), 0) AS n, count(*) FILTER (WHERE w.n >= ?) AS capped FROM shard_leases l
                CROSS JOIN LATERAL (
                    SELECT (SELECT count(*) FROM (SELECT 1 FROM messages m WHERE m.shard = l.shard
                              AND (m.xid, m.position) > (l.publish_xid, l.publish_position) LIMIT ?) a)
                         + (SELECT count(*) FROM (SELECT 1 FROM message_events e WHERE e.type = 7 AND e.shard = l.shard
                              AND (e.xid, e.position) > (l.publish_xid, l.publish_position) LIMIT ?) b) AS n) w""", WAITING_CAP, WAITING_CAP, WAITING_CAP));
        return row == null ? new long[] {0, 0} : new long[] {row.get("n", Long.class), row.get("capped", Long.class)};
    }

    /** Entries not read yet (the groups' lag) and read but not acknowledged (pending), summed over streams. */
    private static long[] depth(List<Stream> streams) {
        long lag = 0;
        long pending = 0;
        for (Stream s : streams) {
            try {
                for (Object g : s.connection().sync().xinfoGroups(s.key())) {
                    Map<String, Object> info = pairs(g);
                    if (s.group().equals(String.valueOf(info.get("name")))) {
                        lag += info.get("lag") instanceof Number n ? n.longValue() : 0;
                        pending += info.get("pending") instanceof Number n ? n.longValue() : 0;
                    }
                }
            } catch (RuntimeException e) {
                // No stream or group yet (nothing was ever published there), or Redis down: counted as empty; the
                // redis-* and workers-* health checks say which.
            }
        }
        return new long[] {lag, pending};
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> pairs(Object raw) {
        Map<String, Object> map = new LinkedHashMap<>();
        if (raw instanceof List<?> list) {
            for (int i = 0; i + 1 < list.size(); i += 2) {
                map.put(String.valueOf(list.get(i)), list.get(i + 1));
            }
        }
        return map;
    }

    private static long parse(String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
