package dev.sendlog.service.send.provider;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import dev.sendlog.service.queue.QueueConnection;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.distributed.proxy.optimization.Optimizations;
import io.lettuce.core.SetArgs;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A gateway's contracted rate in parts per second ({@code gateways.<name>.maxPerSecond}), held across every send-worker
 * process by a token bucket that all of them share in Redis (Bucket4j's Lettuce integration: one compare-and-swap per
 * take, no script of our own). A take waits for its tokens, in the order asked, up to a bound the caller gives.
 *
 * <p>Three rules keep it from ever letting more through than the rate:
 * <ul>
 *   <li>A bucket starts empty (its initial tokens are 0), so a bucket that Redis lost (a restart, a flush, an eviction)
 *       comes back refilling at the rate instead of granting a full burst at once.</li>
 *   <li>A provider's 429 ({@link #throttled}) moves every process to a second bucket at {@code throttledShare} of the
 *       rate for {@code throttleFor} (or the Retry-After, when longer): the switch is a key with an expiry in Redis,
 *       read by each process at most every {@value #SLOW_FLAG_READ_MS} ms, and taken at once by the process that saw it.</li>
 *   <li>While Redis cannot be reached, each process keeps to a bucket of its own at {@code fallbackShare} of the rate: a
 *       lower rate, never none.</li>
 * </ul>
 * A message of more parts than the bucket holds (a tenth of a second's worth) takes the whole bucket, so it is never stuck.
 */
public final class GatewayRate implements SendRate {
    private static final Logger LOG = LoggerFactory.getLogger(GatewayRate.class);
    static final long SLOW_FLAG_READ_MS = 250;

    private final String gateway;
    private final int perSecond;
    private final Duration throttleFor;
    private final Limited normal;
    private final Limited slowed;
    private final Limited fallback;
    private final QueueConnection flags;
    private final String slowKey;
    private final AtomicLong slowUntilMs = new AtomicLong();
    private final AtomicLong slowReadAtMs = new AtomicLong();
    private final Counter throttles;
    private final Counter fallbacks;
    private final Counter waitsTooLong;

    private record Limited(Bucket bucket, long capacity) {
        boolean take(long parts, Duration maxWait) throws InterruptedException {
            long n = Math.min(parts, capacity);
            // Bucket4j refuses a wait of zero; no wait is a plain try.
            return maxWait.isZero() || maxWait.isNegative()
                    ? bucket.tryConsume(n)
                    : bucket.asBlocking().tryConsume(n, maxWait);
        }
    }

    /**
     * @param store      the shared buckets (Redis), keyed by bytes
     * @param flags      a connection for the throttle switch (the same Redis)
     * @param keyPrefix  the pipeline's Redis key prefix
     */
    public GatewayRate(
            String gateway,
            int perSecond,
            double throttledShare,
            Duration throttleFor,
            double fallbackShare,
            ProxyManager<byte[]> store,
            QueueConnection flags,
            String keyPrefix,
            MetricRegistry metrics) {
        this(
                gateway,
                keyPrefix + "{rate}:" + gateway,
                "gateway." + gateway + ".rate",
                perSecond,
                throttledShare,
                throttleFor,
                fallbackShare,
                store,
                flags,
                metrics);
    }

    /**
     * A gateway's status-query rate ({@code gateways.<name>.queriesPerSecond}, issue 32), shared by every process's
     * reconciler the same way, in a bucket of its own: queries never take the sends' tokens, nor sends the queries'.
     * Its metrics are {@code gateway.<name>.query.rate.*}; {@code flags} is a connection for {@link #slowKey(String)}
     * of the queries' key.
     */
    public static GatewayRate forQueries(
            String gateway,
            int perSecond,
            double fallbackShare,
            ProxyManager<byte[]> store,
            QueueConnection flags,
            String keyPrefix,
            MetricRegistry metrics) {
        return new GatewayRate(
                gateway,
                queriesKey(keyPrefix, gateway),
                "gateway." + gateway + ".query.rate",
                perSecond,
                0.5,
                Duration.ofSeconds(10),
                fallbackShare,
                store,
                flags,
                metrics);
    }

    /** The Redis key of a gateway's status-query bucket. */
    public static String queriesKey(String keyPrefix, String gateway) {
        return keyPrefix + "{rate}:" + gateway + ":queries";
    }

    /** The Redis key of a bucket's throttle switch (the key a {@code flags} connection is made for). */
    public static String slowKey(String bucketKey) {
        return bucketKey + ":slow";
    }

    private GatewayRate(
            String gateway,
            String key,
            String metricBase,
            int perSecond,
            double throttledShare,
            Duration throttleFor,
            double fallbackShare,
            ProxyManager<byte[]> store,
            QueueConnection flags,
            MetricRegistry metrics) {
        if (perSecond < 1) {
            throw new IllegalArgumentException("a rate limit needs at least 1 per second, not " + perSecond);
        }
        this.gateway = gateway;
        this.perSecond = perSecond;
        this.throttleFor = throttleFor;
        this.slowKey = slowKey(key);
        this.flags = flags;
        this.normal = shared(store, key, perSecond);
        this.slowed = shared(store, key + ":throttled", share(perSecond, throttledShare));
        long own = share(perSecond, fallbackShare);
        this.fallback = new Limited(
                Bucket.builder()
                        .addLimit(l -> l.capacity(burst(own))
                                .refillGreedy(own, Duration.ofSeconds(1))
                                .initialTokens(0))
                        .build(),
                burst(own));
        String base = metricBase;
        this.throttles = metrics.counter(base + ".throttles");
        this.fallbacks = metrics.counter(base + ".fallbacks");
        this.waitsTooLong = metrics.counter(base + ".waits.too.long");
        metrics.registerGauge(base + ".per.second", () -> slowNow() ? share(perSecond, throttledShare) : perSecond);
    }

    /**
     * A bucket holds a tenth of a second's worth: the rate is spent evenly, never saved up. A bucket of a whole second
     * filled while its gateway was slowed (or idle) and then spent at once on top of the rate, against a provider whose
     * own bucket had just enough: scripts/bench-rate measured a 429 every few seconds that way, each slowing every
     * process for throttleFor (71 of 100 submits a second accepted; 2% refused).
     */
    static long burst(long perSecond) {
        return Math.max(1, (perSecond + 9) / 10);
    }

    /** The benchmark's switch: each take its own compare-and-swap, as before batching. */
    public static final String UNBATCHED_PROPERTY = "sendlog.rate.unbatched";

    private static long share(int perSecond, double share) {
        return Math.max(1, Math.round(perSecond * share));
    }

    private static Limited shared(ProxyManager<byte[]> store, String key, long perSecond) {
        BucketConfiguration config = BucketConfiguration.builder()
                .addLimit(l -> l.capacity(burst(perSecond))
                        .refillGreedy(perSecond, Duration.ofSeconds(1))
                        .initialTokens(0))
                .build();
        // Batching: the takes of this process's threads that meet at the bucket go to Redis as one compare-and-swap,
        // instead of each thread's own (hundreds of jobs waiting for a gateway's tokens would otherwise retry each
        // other's swaps on the one key). The system property turns it off for scripts/bench-rate's side-by-side case
        // only; it is no setting.
        var builder = store.builder();
        if (!Boolean.getBoolean(UNBATCHED_PROPERTY)) {
            builder = builder.withOptimization(Optimizations.batching());
        }
        return new Limited(builder.build(key.getBytes(StandardCharsets.UTF_8), () -> config), burst(perSecond));
    }

    @Override
    public String gateway() {
        return gateway;
    }

    public int perSecond() {
        return perSecond;
    }

    /**
     * Takes {@code parts} tokens, waiting for them up to {@code maxWait}. False when they would come later than that:
     * then nothing was taken, and the caller does not call the provider. Interrupted: nothing taken either.
     */
    @Override
    public boolean acquire(int parts, Duration maxWait) throws InterruptedException {
        boolean granted = take(parts, maxWait);
        if (!granted && maxWait.isPositive()) {
            waitsTooLong.inc();
        }
        return granted;
    }

    private boolean take(int parts, Duration maxWait) throws InterruptedException {
        boolean slow = slowNow();
        boolean granted;
        try {
            granted = (slow ? slowed : normal).take(parts, maxWait);
        } catch (RuntimeException redisUnreachable) {
            // Bucket4j surfaces Lettuce's failures (disconnected, timed out) as runtime exceptions; never "no limit".
            fallbacks.inc();
            LOG.warn(
                    "the shared rate of gateway {} cannot be read in Redis; keeping to this process's fallback rate: {}",
                    gateway,
                    redisUnreachable.toString());
            granted = fallback.take(parts, maxWait);
        }
        return granted;
    }

    /** Takes {@code parts} tokens if they are there now, without waiting; false: nothing taken. */
    @Override
    public boolean tryAcquire(int parts) {
        try {
            return take(parts, Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The provider said 429 (or a throttle status): every process slows down for a while. */
    @Override
    public void throttled(Duration retryAfter) {
        throttles.inc();
        Duration slowFor = retryAfter != null && retryAfter.compareTo(throttleFor) > 0 ? retryAfter : throttleFor;
        long until = System.currentTimeMillis() + slowFor.toMillis();
        slowUntilMs.accumulateAndGet(until, Math::max);
        try {
            flags.sync().set(slowKey, Long.toString(until), SetArgs.Builder.px(slowFor.toMillis()));
        } catch (RuntimeException e) {
            LOG.warn("could not tell the other processes that gateway {} throttles: {}", gateway, e.toString());
        }
    }

    /** Whether the gateway is in its slowed period: this process's own knowledge, or the shared key read now and then. */
    boolean slowNow() {
        long now = System.currentTimeMillis();
        long readAt = slowReadAtMs.get();
        if (now - readAt >= SLOW_FLAG_READ_MS && slowReadAtMs.compareAndSet(readAt, now)) {
            try {
                String until = flags.sync().get(slowKey);
                if (until != null) {
                    slowUntilMs.accumulateAndGet(Long.parseLong(until), Math::max);
                }
            } catch (RuntimeException e) {
                // Unreadable: the take itself finds Redis unreachable and falls back.
            }
        }
        return slowUntilMs.get() > now;
    }
}
