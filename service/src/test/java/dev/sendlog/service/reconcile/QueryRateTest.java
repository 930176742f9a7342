package dev.sendlog.service.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A gateway's status-query rate (issue 32): queries start evenly spaced at most {@code perSecond} a second, however many
 * threads ask at once, so a backlog of lost receipts is asked about at the pace the provider allows. Only lower bounds
 * on the spacing are asserted (a slow machine makes the gaps longer, never shorter).
 */
class QueryRateTest {
    @Test
    void queriesFromManyThreadsStartNoCloserThanTheRateAllows() throws Exception {
        int perSecond = 50;
        QueryRate rate = new QueryRate(perSecond);
        int threads = 20;
        List<Long> starts = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(threads);
        for (int i = 0; i < threads; i++) {
            Thread.ofVirtual().start(() -> {
                try {
                    go.await();
                    rate.acquire();
                    starts.add(System.nanoTime());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    done.countDown();
                }
            });
        }
        long begin = System.nanoTime();
        go.countDown();
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(starts).hasSize(threads);
        List<Long> sorted = new ArrayList<>(starts);
        Collections.sort(sorted);
        long interval = TimeUnit.SECONDS.toNanos(1) / perSecond;
        // The first may start at once; the n-th no sooner than (n-1) intervals after the first slot was handed out.
        long span = sorted.get(threads - 1) - begin;
        assertThat(span).as("20 queries at 50/s span at least 19 intervals").isGreaterThanOrEqualTo((threads - 1) * interval);
    }

    @Test
    void aRateBelowOneAQueryASecondIsRefused() {
        assertThatThrownBy(() -> new QueryRate(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
