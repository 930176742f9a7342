package dev.sendlog.service.send.provider;

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

    /** The turns given, in order (the observer also hears "+lane" when a take joins a line). */
    private static List<String> turns(List<String> events) {
        synchronized (events) {
            return events.stream().filter(e -> !e.startsWith("+")).toList();
        }
    }

    @Test
    void aFewTakesOfOneLaneGoOutBetweenTheTakesOfAFloodingLaneNotBehindThemAll() throws Exception {
        FairShares fair = shares(50);
        SendRate a = fair.lane("a", 1, false);
        SendRate b = fair.lane("b", 1, false);
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean stop = new AtomicBoolean();
        List<Future<?>> takers = new ArrayList<>();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            try {
                takers.addAll(flood(a, 30, stop, pool));
                Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> fair.waitingIn("a") >= 20);
                fair.observeGrants(events::add);
                List<Future<Boolean>> few = new ArrayList<>();
                for (int i = 0; i < 5; i++) {
                    few.add(pool.submit(() -> b.acquire(1, Duration.ofSeconds(30))));
                }
                for (Future<Boolean> f : few) {
                    assertThat(f.get()).isTrue();
                }
                // From the moment the fifth of b's takes joined its line to b's fifth turn.
                List<String> seen;
                synchronized (events) {
                    seen = new ArrayList<>(events);
                }
                int lastJoin = seen.lastIndexOf("+b");
                int lastTurn = seen.lastIndexOf("b");
                long aBetween = seen.subList(lastJoin, lastTurn + 1).stream()
                        .filter("a"::equals)
                        .count();
                // Weights 1:1: b's takes alternate with a's, never behind a's twenty-odd waiting.
                assertThat(aBetween).as("a's turns until b's fifth: %s", seen).isLessThanOrEqualTo(5);
            } finally {
                stopAll(stop, takers);
            }
        }
    }

    @Test
    void whileBothWaitEachLaneGetsItsWeightsShareAndAFirstLaneIsServedNext() throws Exception {
        FairShares fair = shares(200);
        SendRate a = fair.lane("a", 1, false);
        SendRate b = fair.lane("b", 3, false);
        SendRate high = fair.lane("high", 1, true);
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean stop = new AtomicBoolean();
        List<Future<?>> takers = new ArrayList<>();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            try {
                takers.addAll(flood(a, 20, stop, pool));
                takers.addAll(flood(b, 20, stop, pool));
                Awaitility.await()
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> fair.waitingIn("a") >= 10 && fair.waitingIn("b") >= 10);
                fair.observeGrants(events::add);
                Awaitility.await()
                        .atMost(Duration.ofSeconds(20))
                        .until(() -> turns(events).size() >= 80);
                List<String> window = turns(events).subList(0, 80);
                assertThat(pool.submit(() -> high.acquire(1, Duration.ofSeconds(30)))
                                .get())
                        .isTrue();
                List<String> seen;
                synchronized (events) {
                    seen = new ArrayList<>(events);
                }
                long bs = window.stream().filter("b"::equals).count();
                long as = window.stream().filter("a"::equals).count();
                assertThat(bs)
                        .as("b (weight 3) against a (weight 1): %s", window)
                        .isBetween(3 * as - 3, 3 * as + 3);
                // high joined its line while a turn was held (twenty-odd of a's and b's waiting): the next turn is its.
                int joined = seen.indexOf("+high");
                if (joined >= 0) {
                    List<String> next = seen.subList(joined + 1, seen.size()).stream()
                            .filter(e -> !e.startsWith("+"))
                            .toList();
                    assertThat(next.get(0))
                            .as("the turn after high joined: %s", seen)
                            .isEqualTo("high");
                } else {
                    assertThat(seen).as("high took a free turn at once").contains("high");
                }
            } finally {
                stopAll(stop, takers);
            }
        }
    }

    @Test
    void aLaneAloneGetsEveryTokenAndTheLinesEmptyWhenItStops() throws Exception {
        FairShares fair = shares(50);
        SendRate a = fair.lane("a", 1, false);
        fair.lane("b", 1, false);
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        fair.observeGrants(events::add);
        AtomicBoolean stop = new AtomicBoolean();
        List<Future<?>> takers = new ArrayList<>();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            try {
                takers.addAll(flood(a, 10, stop, pool));
                Awaitility.await()
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> turns(events).size() >= 30);
            } finally {
                stopAll(stop, takers);
            }
        }
        assertThat(turns(events)).containsOnly("a");
        assertThat(fair.idle()).isTrue();
        assertThat(a.acquire(1, Duration.ofSeconds(5)))
                .as("an idle turnstile lets a take through")
                .isTrue();
    }
}
