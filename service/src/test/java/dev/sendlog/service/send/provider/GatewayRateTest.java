package dev.sendlog.service.send.provider;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import dev.sendlog.service.queue.RedisConnections;
import dev.sendlog.testkit.PrivateRedis;
import dev.sendlog.testkit.TestRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The shared rate of a gateway (issue 29), against a real Redis: two limiters with clients of their own stand for two
 * send-worker processes.
 */
class GatewayRateTest {
    private final List<RedisConnections> clients = new ArrayList<>();
    private final String prefix = TestRedis.prefix();

    @AfterEach
    void closeClients() {
        clients.forEach(RedisConnections::close);
        TestRedis.deleteKeys(TestRedis.endpoint(), prefix);
    }

    private GatewayRate process(String uri, int perSecond, double fallbackShare, MetricRegistry metrics) {
        RedisConnections redis = new RedisConnections(uri, Duration.ofSeconds(1));
        clients.add(redis);
        return new GatewayRate(
                "sim",
                perSecond,
                0.5,
                Duration.ofSeconds(10),
                fallbackShare,
                redis.bucketStore(),
                redis.connect(prefix + "{rate}:sim:slow"),
                prefix,
                metrics);
    }

    /** Takes one part at a time on {@code threads} virtual threads until {@code total} were granted in all; the time it took. */
    private static Duration takeTogether(int total, int threads, GatewayRate... processes) throws Exception {
        AtomicInteger granted = new AtomicInteger();
        long start = System.nanoTime();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> takers = new ArrayList<>();
            for (GatewayRate rate : processes) {
                for (int i = 0; i < threads; i++) {
                    takers.add(pool.submit(() -> {
                        while (granted.get() < total) {
                            if (rate.acquire(1, Duration.ofSeconds(30))) {
                                granted.incrementAndGet();
                            }
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> f : takers) {
                f.get();
            }
        }
        assertThat(granted.get()).isGreaterThanOrEqualTo(total);
        return Duration.ofNanos(System.nanoTime() - start);
    }

    @Test
    void twoProcessesTogetherTakeNoMoreThanTheRate() throws Exception {
        GatewayRate a = process(TestRedis.endpoint().uri(), 50, 0.25, new MetricRegistry());
        GatewayRate b = process(TestRedis.endpoint().uri(), 50, 0.25, new MetricRegistry());
        // Buckets start empty: 100 parts at 50 per second shared take at least 2 s (each process alone would get its
        // own 50 per second, and the 100 would take 1 s).
        Duration took = takeTogether(100, 4, a, b);
        assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(1_900));
    }

    @Test
    void statusQueriesOfTwoProcessesShareABucketOfTheirOwnApartFromTheSends() throws Exception {
        MetricRegistry metrics = new MetricRegistry();
        GatewayRate a = queries(50, metrics);
        GatewayRate b = queries(50, new MetricRegistry());
        // As for sends: 100 queries at 50 per second shared take at least 2 s.
        Duration took = takeTogether(100, 4, a, b);
        assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(1_900));
        try (var redis = io.lettuce.core.RedisClient.create(TestRedis.endpoint().uri());
                var c = redis.connect()) {
            assertThat(c.sync().exists(GatewayRate.queriesKey(prefix, "sim")))
                    .as("the queries' bucket")
                    .isEqualTo(1);
            assertThat(c.sync().exists(prefix + "{rate}:sim"))
                    .as("the sends' bucket, untouched by queries")
                    .isZero();
        }
        assertThat(metrics.getGauges())
                .containsKey("gateway.sim.query.rate.per.second")
                .doesNotContainKey("gateway.sim.rate.per.second");
    }

    private GatewayRate queries(int perSecond, MetricRegistry metrics) {
        RedisConnections redis = new RedisConnections(TestRedis.endpoint().uri(), Duration.ofSeconds(1));
        clients.add(redis);
        return GatewayRate.forQueries(
                "sim",
                perSecond,
                0.25,
                redis.bucketStore(),
                redis.connect(GatewayRate.slowKey(GatewayRate.queriesKey(prefix, "sim"))),
                prefix,
                metrics);
    }

    @Test
    void aBucketRedisLostComesBackEmptyNotFull() throws Exception {
        GatewayRate rate = process(TestRedis.endpoint().uri(), 1, 0.25, new MetricRegistry());
        assertThat(rate.acquire(1, Duration.ZERO))
                .as("a new bucket starts empty")
                .isFalse();
        assertThat(rate.acquire(1, Duration.ofSeconds(5))).isTrue();
        TestRedis.deleteKeys(TestRedis.endpoint(), prefix); // as a restarted or flushed Redis would have it
        assertThat(rate.acquire(1, Duration.ZERO))
                .as("a lost bucket grants no burst")
                .isFalse();
    }

    @Test
    void whileRedisCannotBeReachedEachProcessKeepsToItsLowerFallbackRate() throws Exception {
        try (PrivateRedis server = new PrivateRedis().start()) {
            MetricRegistry metrics = new MetricRegistry();
            GatewayRate rate = process(server.endpoint().uri(), 40, 0.25, metrics);
            assertThat(rate.acquire(1, Duration.ofSeconds(5))).isTrue();
            server.close();
            // 40 per second shared; alone and without Redis, 10 per second: 20 parts take at least 2 s, never none.
            Duration took = takeTogether(20, 4, rate);
            assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(1_900));
            assertThat(metrics.counter("gateway.sim.rate.fallbacks").getCount()).isGreaterThan(0);
        }
    }

    @Test
    void aThrottleSlowsEveryProcessThatSharesTheGateway() throws Exception {
        GatewayRate a = process(TestRedis.endpoint().uri(), 40, 0.25, new MetricRegistry());
        GatewayRate b = process(TestRedis.endpoint().uri(), 40, 0.25, new MetricRegistry());
        a.throttled(Duration.ofSeconds(30));
        assertThat(a.slowNow()).isTrue();
        // b reads the shared switch within its read interval; then both take from the throttled bucket, 20 per second:
        // 40 parts take at least 2 s.
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(b::slowNow);
        Duration took = takeTogether(40, 4, a, b);
        assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(1_900));
    }
}
