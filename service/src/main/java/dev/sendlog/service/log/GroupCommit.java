package dev.sendlog.service.log;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import dev.sendlog.service.metrics.Metrics;
import io.dropwizard.lifecycle.Managed;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gathers concurrent work items into one transaction. At most {@code writers} transactions run at once
 * (a semaphore). An item that finds nothing queued and no transaction in flight is written at once on
 * the caller's thread: a batch of one, with no hand-off. Otherwise it is queued, and the writer threads
 * take what is queued (up to {@code maxBatchSize} units, waiting at most {@code maxWaitMs} for more) and
 * write it with one commit. So batches grow exactly when commits are the wall. The queue is bounded:
 * when it is full, {@link #offer} refuses.
 *
 * <p>The writer completes every item itself (with its result or the reason it failed). Items that claim
 * the same exclusive key (an idempotency key, a message) never share a transaction: a repeat waits for
 * the next one.
 */
public final class GroupCommit<T extends GroupCommit.Item> implements Managed {
    private static final Logger LOG = LoggerFactory.getLogger(GroupCommit.class);

    /** A unit of work; {@link #fail} must complete it when the writer loop itself breaks. */
    public interface Item {
        /** Units this item counts for against the batch bound (messages, events). */
        int size();

        /** Keys no two items of one transaction may share. */
        Collection<String> exclusiveKeys();

        void fail(String reason);
    }

    private final String name;
    private final Consumer<List<T>> writer;
    private final BlockingQueue<T> queue;
    private final int writers;
    private final int maxBatchSize;
    private final long maxWaitNanos;
    private final Semaphore slots;
    private final Histogram batchSizes;
    private final Timer commitTimer;
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running;

    /**
     * @param name   metric prefix and thread name, e.g. {@code accept}
     * @param writer writes a batch in one transaction and completes every item
     */
    public GroupCommit(
            String name,
            Consumer<List<T>> writer,
            int writers,
            int maxBatchSize,
            int maxWaitMs,
            int queueCapacity,
            MetricRegistry metrics) {
        this.name = name;
        this.writer = writer;
        this.writers = writers;
        this.maxBatchSize = maxBatchSize;
        this.maxWaitNanos = TimeUnit.MILLISECONDS.toNanos(maxWaitMs);
        this.queue = new ArrayBlockingQueue<>(queueCapacity);
        this.slots = new Semaphore(writers);
        this.batchSizes = Metrics.histogram(metrics, name + ".batch.size");
        this.commitTimer = Metrics.timer(metrics, name + ".commit");
        metrics.registerGauge(name + ".queue", queue::size);
    }

    /**
     * Writes the item now if nothing waits and no transaction is in flight, else queues it; false when the
     * queue is full or the committer stopped. Either way the result arrives through the item.
     */
    public boolean offer(T item) {
        if (!running) {
            return false;
        }
        if (queue.isEmpty() && slots.availablePermits() == writers && slots.tryAcquire()) {
            try {
                write(List.of(item));
            } finally {
                slots.release();
            }
            return true;
        }
        return queue.offer(item);
    }

    private void write(List<T> batch) {
        batchSizes.update(batch.stream().mapToInt(Item::size).sum());
        try (Timer.Context ignored = commitTimer.time()) {
            writer.accept(batch);
        }
    }

    @Override
    public void start() {
        running = true;
        for (int i = 0; i < writers; i++) {
            threads.add(
                    Thread.ofPlatform().name(name + "-writer-" + i).daemon(true).start(this::loop));
        }
    }

    @Override
    public void stop() throws InterruptedException {
        running = false;
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(10));
        }
        List<T> left = new ArrayList<>();
        queue.drainTo(left);
        left.forEach(item -> item.fail("the service is shutting down"));
    }

    private void loop() {
        List<T> deferred = new ArrayList<>();
        while (running || !queue.isEmpty() || !deferred.isEmpty()) {
            List<T> batch = List.of();
            try {
                T first = deferred.isEmpty() ? queue.poll(50, TimeUnit.MILLISECONDS) : null;
                if (first == null && deferred.isEmpty()) {
                    continue;
                }
                slots.acquire();
                try {
                    batch = nextBatch(first, deferred);
                    if (!batch.isEmpty()) {
                        write(batch);
                    }
                } finally {
                    slots.release();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                // The writer completes its items itself; reaching here is a bug. Fail the batch loudly, keep the loop.
                LOG.error("{} writer loop failed; failing {} items", name, batch.size(), e);
                batch.forEach(item -> item.fail("internal error: " + e));
            }
        }
    }

    /** The next transaction's items: an item repeating an exclusive key already in the batch waits for the next. */
    private List<T> nextBatch(T first, List<T> deferred) throws InterruptedException {
        List<T> batch = new ArrayList<>();
        Set<String> keys = new HashSet<>();
        int size = 0;
        List<T> stillDeferred = new ArrayList<>();
        for (T item : deferred) {
            if (size < maxBatchSize && addIfKeysFree(item, keys)) {
                batch.add(item);
                size += item.size();
            } else {
                stillDeferred.add(item);
            }
        }
        deferred.clear();
        deferred.addAll(stillDeferred);
        if (first != null) {
            if (addIfKeysFree(first, keys)) {
                batch.add(first);
                size += first.size();
            } else {
                deferred.add(first);
            }
        }
        long deadline = System.nanoTime() + maxWaitNanos;
        while (size < maxBatchSize) {
            T next = queue.poll();
            if (next == null) {
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    break;
                }
                next = queue.poll(remaining, TimeUnit.NANOSECONDS);
                if (next == null) {
                    break;
                }
            }
            if (addIfKeysFree(next, keys)) {
                batch.add(next);
                size += next.size();
            } else {
                deferred.add(next);
            }
        }
        return batch;
    }

    private static boolean addIfKeysFree(Item item, Set<String> keys) {
        Collection<String> mine = item.exclusiveKeys();
        for (String k : mine) {
            if (keys.contains(k)) {
                return false;
            }
        }
        keys.addAll(mine);
        return true;
    }
}
