package dev.sendlog.service.provider;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import dev.sendlog.service.queue.RedisConnections;
import dev.sendlog.testkit.TestRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A gateway's rate shared between lanes by weight (issue 29), against a real Redis bucket: a flooding lane with many
 * takes waiting does not put another lane's take behind all of them; a weighted lane gets its weight's share while both
 * wait; a first lane (high) is served next; and a lane alone gets every token (work-conserving).
 */
class FairSharesTest {
    private final List<RedisConnections> clients = new ArrayList<>();
    private final String prefix = TestRedis.prefix();

    @AfterEach
    void closeClients() {
        clients.forEach(RedisConnections::close);
        TestRedis.deleteKeys(TestRedis.endpoint(), prefix);
    }

    private FairShares shares(int perSecond) {
        RedisConnections redis = new RedisConnections(TestRedis.endpoint().uri(), Duration.ofSeconds(1));
        clients.add(redis);
        GatewayRate rate = new GatewayRate(
                "sim",
                perSecond,
                0.5,
                Duration.ofSeconds(10),
                0.25,
                redis.bucketStore(),
                redis.connect(prefix + "{rate}:sim:slow"),
                prefix,
                new MetricRegistry());
        return new FairShares(rate, new MetricRegistry());
    }

    /** Takes one token at a time on {@code threads} virtual threads until stopped. */
    private static List<Future<?>> flood(
            SendRate lane, int threads, AtomicBoolean stop, java.util.concurrent.ExecutorService pool) {
        List<Future<?>> takers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            takers.add(pool.submit(() -> {
                while (!stop.get()) {
                    lane.acquire(1, Duration.ofSeconds(30));
                }
                return null;
            }));
        }
        return takers;
    }

    private static void stopAll(AtomicBoolean stop, List<Future<?>> takers) throws Exception {
        stop.set(true);
        for (Future<?> f : takers) {
            f.get();
        }
    }

    @Test
    void aFewTakesOfOneLaneGoOutBetweenTheTakesOfAFloodingLaneNotBehindThemAll() throws Exception {
        FairShares fair = shares(50);
        SendRate a = fair.lane("a", 1, false);
        SendRate b = fair.lane("b", 1, false);
        List<String> grants = Collections.synchronizedList(new ArrayList<>());
        fair.observeGrants(grants::add);
        AtomicBoolean stop = new AtomicBoolean();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> takers = flood(a, 30, stop, pool);
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> fair.waitingIn("a") >= 20);
            List<Future<?>> few = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                few.add(pool.submit(() -> b.acquire(1, Duration.ofSeconds(30))));
            }
            // All five in b's line (behind the take holding the turn, with twenty-odd of a's waiting too).
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(1))
                    .until(() -> fair.waitingIn("b")
                                    + grants.stream().filter("b"::equals).count()
                            == 5);
            int from = grants.size();
            for (Future<?> f : few) {
                assertThat(f.get()).isEqualTo(true);
            }
            List<String> after = new ArrayList<>(grants.subList(from, grants.size()));
            int lastB = after.lastIndexOf("b");
            long aBetween =
                    after.subList(0, lastB + 1).stream().filter("a"::equals).count();
            stopAll(stop, takers);
            // Weights 1:1: b's five alternate with a's, never behind a's twenty-odd.
            assertThat(aBetween).as("a's turns until b's fifth: %s", after).isLessThanOrEqualTo(5);
        }
    }

    @Test
    void whileBothWaitEachLaneGetsItsWeightsShareAndAFirstLaneIsServedNext() throws Exception {
        FairShares fair = shares(200);
        SendRate a = fair.lane("a", 1, false);
        SendRate b = fair.lane("b", 3, false);
        SendRate high = fair.lane("high", 1, true);
        List<String> grants = Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean stop = new AtomicBoolean();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> takers = new ArrayList<>(flood(a, 20, stop, pool));
            takers.addAll(flood(b, 20, stop, pool));
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> fair.waitingIn("a") >= 10 && fair.waitingIn("b") >= 10);
            fair.observeGrants(grants::add);
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> grants.size() >= 80);
            List<String> window = new ArrayList<>(grants.subList(0, 80));
            Future<Boolean> one = pool.submit(() -> high.acquire(1, Duration.ofSeconds(30)));
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(1))
                    .until(() -> fair.waitingIn("high") == 1 || grants.contains("high"));
            int from = grants.size();
            assertThat(one.get()).isTrue();
            List<String> untilHigh = new ArrayList<>(grants.subList(from, grants.indexOf("high") + 1));
            stopAll(stop, takers);
            long bs = window.stream().filter("b"::equals).count();
            long as = window.stream().filter("a"::equals).count();
            assertThat(bs).as("b (weight 3) against a (weight 1): %s", window).isBetween(3 * as - 3, 3 * as + 3);
            assertThat(untilHigh)
                    .as("turns from high's arrival in line to its own")
                    .hasSizeLessThanOrEqualTo(2);
        }
    }

    @Test
    void aLaneAloneGetsEveryTokenAndTheLinesEmptyWhenItStops() throws Exception {
        FairShares fair = shares(50);
        SendRate a = fair.lane("a", 1, false);
        fair.lane("b", 1, false);
        List<String> grants = Collections.synchronizedList(new ArrayList<>());
        fair.observeGrants(grants::add);
        AtomicBoolean stop = new AtomicBoolean();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> takers = flood(a, 10, stop, pool);
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> grants.size() >= 30);
            stopAll(stop, takers);
        }
        assertThat(grants).containsOnly("a");
        assertThat(fair.idle()).isTrue();
        assertThat(a.acquire(1, Duration.ofSeconds(5)))
                .as("an idle turnstile lets a take through")
                .isTrue();
    }
}
