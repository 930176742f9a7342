package dev.sendlog.service.log;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How the group commit cuts batches: one transaction at a time, so that what arrives while one is in flight becomes
 * the next batch, and a second transaction beside it only when a full batch waits. The writer here is a function that
 * records each batch (what a transaction would hold) and how many ran at once.
 */
class GroupCommitTest {
    private record Item(String name, CompletableFuture<Void> done) implements GroupCommit.Item {
        Item(String name) {
            this(name, new CompletableFuture<>());
        }

        @Override
        public int size() {
            return 1;
        }

        @Override
        public Collection<String> exclusiveKeys() {
            return List.of();
        }

        @Override
        public void fail(String reason) {
            done.completeExceptionally(new IllegalStateException(reason));
        }
    }

    private final List<List<String>> batches = new CopyOnWriteArrayList<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger mostAtOnce = new AtomicInteger();
    private GroupCommit<Item> commits;

    @AfterEach
    void stop() throws InterruptedException {
        if (commits != null) {
            commits.stop();
        }
    }

    private GroupCommit<Item> start(int writers, int maxBatch, Consumer<List<Item>> during) {
        commits = new GroupCommit<>(
                "test",
                batch -> {
                    mostAtOnce.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                    try {
                        batches.add(batch.stream().map(Item::name).toList());
                        during.accept(batch);
                    } finally {
                        inFlight.decrementAndGet();
                    }
                    batch.forEach(i -> i.done().complete(null));
                },
                writers,
                maxBatch,
                0,
                1000,
                new MetricRegistry());
        commits.start();
        return commits;
    }

    /** Waits inside the writer; a latch that never opens is recorded (and asserted on afterwards), not thrown there. */
    private final AtomicInteger timedOut = new AtomicInteger();

    private void await(CountDownLatch latch) {
        try {
            if (!latch.await(10, TimeUnit.SECONDS)) {
                timedOut.incrementAndGet();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void done(Item item) {
        assertThat(item.done()).succeedsWithin(20, TimeUnit.SECONDS);
    }

    @Test
    void whatArrivesWhileATransactionIsInFlightIsWrittenAsOneBatchAfterIt() {
        CountDownLatch firstWriting = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        start(4, 100, batch -> {
            if (batch.get(0).name().equals("a")) {
                firstWriting.countDown();
                await(releaseFirst);
            }
        });

        Item a = new Item("a");
        Thread.ofVirtual().start(() -> commits.offer(a)); // nothing queued, nothing in flight: written at once
        await(firstWriting);
        List<Item> later = new ArrayList<>();
        for (String name : List.of("b", "c", "d", "e")) {
            Item item = new Item(name);
            later.add(item);
            assertThat(commits.offer(item)).isTrue();
        }
        // Four writers are idle, and none may start a small transaction beside the one in flight.
        Awaitility.await().during(200, TimeUnit.MILLISECONDS).until(() -> batches.size() == 1);
        releaseFirst.countDown();

        later.forEach(GroupCommitTest::done);
        done(a);
        assertThat(timedOut.get()).isZero();
        assertThat(batches).containsExactly(List.of("a"), List.of("b", "c", "d", "e"));
        assertThat(mostAtOnce.get()).isEqualTo(1);
    }

    @Test
    void aFullBatchWaitingBehindTheOneInFlightIsWrittenBesideIt() {
        CountDownLatch gateWriting = new CountDownLatch(1);
        CountDownLatch releaseGate = new CountDownLatch(1);
        CountDownLatch twoAtOnce = new CountDownLatch(2);
        start(2, 2, batch -> {
            if (batch.get(0).name().equals("gate")) {
                gateWriting.countDown();
                await(releaseGate);
            } else if (twoAtOnce.getCount() > 0) {
                // The first two batches after the gate each wait until the other one is being written too.
                twoAtOnce.countDown();
                await(twoAtOnce);
            }
        });

        Item gate = new Item("gate");
        Thread.ofVirtual().start(() -> commits.offer(gate));
        await(gateWriting);
        List<Item> backlog = new ArrayList<>();
        for (int i = 1; i <= 6; i++) {
            Item item = new Item("x" + i);
            backlog.add(item);
            assertThat(commits.offer(item)).isTrue();
        }
        releaseGate.countDown();

        backlog.forEach(GroupCommitTest::done);
        assertThat(timedOut.get()).as("two batches written at once").isZero();
        assertThat(mostAtOnce.get()).isEqualTo(2);
        assertThat(batches.stream().mapToInt(List::size).sum()).isEqualTo(7);
        assertThat(batches.subList(1, batches.size()))
                .allSatisfy(b -> assertThat(b).hasSizeLessThanOrEqualTo(2));
    }

    @Test
    void anItemOfferedWhenNothingIsQueuedOrInFlightIsWrittenOnTheCallersThread() {
        List<String> writtenOn = new CopyOnWriteArrayList<>();
        start(4, 100, batch -> writtenOn.add(Thread.currentThread().getName()));

        Item a = new Item("a");
        assertThat(commits.offer(a)).isTrue();

        assertThat(a.done()).isDone();
        assertThat(writtenOn).containsExactly(Thread.currentThread().getName());
    }
}
