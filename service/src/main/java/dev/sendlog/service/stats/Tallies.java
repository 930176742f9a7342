package dev.sendlog.service.stats;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Snapshot;
import com.codahale.metrics.Timer;
import dev.sendlog.projections.MessageStatus;
import dev.sendlog.service.queue.QueueConnection;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every process of the pipeline did, minute by minute, shared through Redis so the console's pipeline view sees
 * the whole cluster without reading the log: per minute one hash of counts ({@code kind|gateway|tenant|process}, each
 * process writing its own totals), and one hash of stage timings ({@code stage|process} = count, p50, p99 of the process's
 * last minute). Both expire after {@link #KEEP_SECONDS}; a reader merges the minutes it wants ({@code
 * overview.PipelineOverview}).
 *
 * <p>Counts are taken after the commit that made them true (an acceptance, a status change, a parked callback), so a
 * rolled-back batch is never counted. They are kept in the process and written every few seconds as totals; a write
 * that fails is simply made again, for up to {@link #MAX_PENDING_MINUTES} minutes back (older minutes are dropped and
 * counted in {@code tallies.dropped}): the figures are a window on the pipeline, the log stays the truth.
 */
public final class Tallies {
    private static final Logger LOG = LoggerFactory.getLogger(Tallies.class);
    /** How long Redis keeps a minute: the console shows the last hour. */
    public static final long KEEP_SECONDS = 2 * 3600;

    static final int MAX_PENDING_MINUTES = 10;
    /** Distinct tenants one process names per minute; the rest are counted as {@link #OTHER}. */
    static final int MAX_TENANTS_PER_MINUTE = 500;

    static final String OTHER = "(other)";
    public static final String NONE = "-";

    /** What is counted. */
    public enum Kind {
        ACCEPTED,
        PUBLISHED,
        SENT,
        SEND_FAILED,
        DELIVERED,
        UNDELIVERED,
        UNKNOWN,
        REJECTED,
        DEAD,
        EXPIRED,
        CANCELLED,
        PARKED;

        /** The kind a status change to {@code status} counts as, or null when it is not counted. */
        static Kind of(MessageStatus status) {
            return switch (status) {
                case SENT -> SENT;
                case RETRYING -> SEND_FAILED;
                case DELIVERED -> DELIVERED;
                case UNDELIVERED -> UNDELIVERED;
                case UNKNOWN -> UNKNOWN;
                case REJECTED -> REJECTED;
                case DEAD -> DEAD;
                case EXPIRED -> EXPIRED;
                case CANCELLED -> CANCELLED;
                default -> null;
            };
        }
    }

    /** Stages whose timers are shared, in the order a message meets them (a subset of {@code metrics.PipelineBreakdown}). */
    public static final List<String> TIMED_STAGES = List.of(
            "accept.commit",
            "poller.publish.round.trip",
            "send.queue.wait",
            "send.provider",
            "send.accepted.to.sent",
            "callbacks.record.commit");

    /** Keeps nothing: for a process (or a test) with no Redis to share figures through. */
    public static final Tallies DISABLED = new Tallies(null, "", "", null, InstantSource.system());

    private final QueueConnection redis;
    private final String prefix;
    private final String process;
    private final MetricRegistry metrics;
    private final InstantSource clock;
    private final ConcurrentHashMap<Long, ConcurrentHashMap<String, LongAdder>> pending = new ConcurrentHashMap<>();
    private final Counter dropped;
    private final Counter flushFailures;

    /**
     * @param redis   a connection of its own to the send job type's Redis
     * @param prefix  the pipeline's key prefix
     * @param process this process's name (its timings are one field per stage)
     */
    public Tallies(QueueConnection redis, String prefix, String process, MetricRegistry metrics, InstantSource clock) {
        this.redis = redis;
        this.prefix = prefix;
        this.process = process;
        this.metrics = metrics;
        this.clock = clock;
        this.dropped = metrics == null ? new Counter() : metrics.counter("tallies.dropped");
        this.flushFailures = metrics == null ? new Counter() : metrics.counter("tallies.flush.failures");
    }

    public static String countsKey(String prefix, long minute) {
        return prefix + "{stats}:counts:" + minute;
    }

    public static String timingsKey(String prefix, long minute) {
        return prefix + "{stats}:timings:" + minute;
    }

    static String field(Kind kind, String gateway, String tenant) {
        return kind.name() + "|" + (gateway == null ? NONE : gateway) + "|" + (tenant == null ? NONE : tenant);
    }

    public boolean enabled() {
        return redis != null;
    }

    /** Counts {@code n} of {@code kind} for a gateway and a tenant (either may be null: not known there). */
    public void add(Kind kind, String gateway, String tenant, long n) {
        if (redis == null || n <= 0) {
            return;
        }
        long minute = clock.millis() / 60_000;
        ConcurrentHashMap<String, LongAdder> counts = pending.computeIfAbsent(minute, m -> new ConcurrentHashMap<>());
        String key = field(kind, gateway, tenant);
        LongAdder adder = counts.get(key);
        if (adder == null) {
            if (tenant != null && counts.size() >= MAX_TENANTS_PER_MINUTE * Kind.values().length) {
                key = field(kind, gateway, OTHER);
            }
            adder = counts.computeIfAbsent(key, k -> new LongAdder());
        }
        adder.add(n);
    }

    /** A committed event as the counts see it: the status it moved its message to (null: none), gateway and tenant. */
    public interface Change {
        MessageStatus statusAfter();

        String gateway();

        String tenant();
    }

    /** The status changes among committed events: each counted once, with its message's gateway and tenant. */
    public void committed(Collection<? extends Change> events) {
        if (redis == null) {
            return;
        }
        for (Change e : events) {
            if (e.statusAfter() != null) {
                Kind kind = Kind.of(e.statusAfter());
                if (kind != null) {
                    add(kind, e.gateway(), e.tenant(), 1);
                }
            }
        }
    }

    /**
     * Writes this process's totals of every minute not yet written for good, and its stage timings of the last minute,
     * to Redis. Each process owns its fields ({@code kind|gateway|tenant|process}) and writes absolute totals, so a
     * write repeated after a timeout (that may have reached Redis after all) adds nothing twice. A past minute is
     * forgotten once written. Called every few seconds by one scheduled thread; never throws.
     */
    public void flush() {
        if (redis == null) {
            return;
        }
        long now = clock.millis() / 60_000;
        Map<Long, Map<String, String>> totals = new HashMap<>();
        for (Long minute : new ArrayList<>(pending.keySet())) {
            ConcurrentHashMap<String, LongAdder> counts = pending.get(minute);
            if (counts == null) {
                continue;
            }
            if (minute < now - MAX_PENDING_MINUTES) {
                pending.remove(minute);
                counts.values().forEach(a -> dropped.inc(a.sum()));
                continue;
            }
            Map<String, String> values = new HashMap<>();
            counts.forEach((field, adder) -> values.put(field + "|" + process, Long.toString(adder.sum())));
            if (!values.isEmpty()) {
                totals.put(minute, values);
            }
        }
        Map<String, String> timings = timings();
        RedisClusterAsyncCommands<String, String> async = redis.async();
        List<RedisFuture<?>> sent = new ArrayList<>();
        try {
            totals.forEach((minute, values) -> {
                String key = countsKey(prefix, minute);
                sent.add(async.hset(key, values));
                sent.add(async.expire(key, KEEP_SECONDS));
            });
            if (!timings.isEmpty()) {
                String key = timingsKey(prefix, now);
                sent.add(async.hset(key, timings));
                sent.add(async.expire(key, KEEP_SECONDS));
            }
            for (RedisFuture<?> f : sent) {
                f.get(5, TimeUnit.SECONDS);
            }
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            flushFailures.inc();
            // Redis down is told by its health checks; here once, then every 100th failure. The totals stay.
            if (flushFailures.getCount() % 100 == 1) {
                LOG.warn(
                        "pipeline counts not sent to Redis, kept for the next try failures={} error=\"{}\"",
                        flushFailures.getCount(),
                        e.toString());
            }
            return;
        }
        // Written for good: a past minute's totals are final (a count added between the read above and here, by a
        // thread that read the clock just before it rolled over, is lost: one or two per minute at most).
        totals.keySet().stream().filter(m -> m < now).forEach(pending::remove);
    }

    /** This process's last minute per shared stage: {@code stage|process} = {@code count p50ms p99ms}. */
    private Map<String, String> timings() {
        Map<String, String> out = new HashMap<>();
        if (metrics == null) {
            return out;
        }
        Map<String, Timer> timers = metrics.getTimers();
        for (String stage : TIMED_STAGES) {
            Timer t = timers.get(stage);
            if (t == null) {
                continue;
            }
            Snapshot s = t.getSnapshot();
            if (s.size() == 0) {
                continue;
            }
            out.put(
                    stage + "|" + process,
                    s.size() + " " + round(s.getMedian() / 1e6) + " " + round(s.get99thPercentile() / 1e6));
        }
        return out;
    }

    private static double round(double ms) {
        return Math.round(ms * 100) / 100.0;
    }
}
