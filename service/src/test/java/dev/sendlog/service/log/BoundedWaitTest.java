package dev.sendlog.service.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Bounded waits without a timer each: the value, the future's own failure, the bound, and nothing held afterwards. */
@Timeout(30)
class BoundedWaitTest {
    private final BoundedWait waits = new BoundedWait("bounded-wait-test");

    @AfterEach
    void stop() {
        waits.close();
    }

    @Test
    void aCompletedFutureIsAnsweredAtOnceAndOneCompletedLaterWakesItsWaiter() throws Exception {
        assertThat(waits.await(CompletableFuture.completedFuture("now"), Duration.ofSeconds(1)))
                .isEqualTo("now");

        CompletableFuture<String> later = new CompletableFuture<>();
        try (var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<String> waiter = threads.submit(() -> waits.await(later, Duration.ofSeconds(30)));
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> waits.held() > 0);
            later.complete("committed");
            assertThat(waiter.get(5, TimeUnit.SECONDS)).isEqualTo("committed");
        }
    }

    @Test
    void theFuturesOwnFailureReachesTheWaiterAsItself() {
        CompletableFuture<String> failed = new CompletableFuture<>();
        IllegalStateException cause = new IllegalStateException("the writer failed");
        CompletableFuture.runAsync(() -> failed.completeExceptionally(cause));
        assertThatThrownBy(() -> waits.await(failed, Duration.ofSeconds(30)))
                .isInstanceOf(ExecutionException.class)
                .hasCause(cause);
    }

    @Test
    void aFutureNotCompletedWithinItsBoundTimesOutWhileTheFutureItselfStaysOpen() throws Exception {
        CompletableFuture<String> never = new CompletableFuture<>();
        long started = System.nanoTime();
        assertThatThrownBy(() -> waits.await(never, Duration.ofMillis(300)))
                .isInstanceOf(TimeoutException.class)
                .hasMessageContaining("PT0.3S");
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertThat(waitedMs).isGreaterThanOrEqualTo(300);
        // The writer may still complete it (a commit that lands late): the timeout failed only the waiter's copy.
        assertThat(never.isDone()).isFalse();
        assertThat(never.complete("late")).isTrue();
    }

    @Test
    void manyWaitersWithDifferentBoundsEachGetTheirOwnOutcomeAndNoneIsHeldAfterwards() throws Exception {
        List<CompletableFuture<Integer>> futures = new ArrayList<>();
        List<Future<Object>> waiters = new ArrayList<>();
        try (var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 200; i++) {
                CompletableFuture<Integer> f = new CompletableFuture<>();
                futures.add(f);
                // Odd ones are never completed and have a short bound; even ones a long bound, completed below.
                Duration bound = i % 2 == 0 ? Duration.ofSeconds(30) : Duration.ofMillis(200 + i);
                waiters.add(threads.submit(() -> {
                    try {
                        return waits.await(f, bound);
                    } catch (TimeoutException e) {
                        return "timed out";
                    }
                }));
            }
            for (int i = 0; i < 200; i += 2) {
                futures.get(i).complete(i);
            }
            for (int i = 0; i < 200; i++) {
                assertThat(waiters.get(i).get(10, TimeUnit.SECONDS)).isEqualTo(i % 2 == 0 ? i : "timed out");
            }
        }
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> waits.held() == 0);
    }
}
