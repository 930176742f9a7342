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
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gathers concurrent work items into one transaction. An item that finds nothing queued and no transaction in flight
 * is written at once on the caller's thread: a batch of one, with no hand-off. Otherwise it is queued, and the writer
 * threads take what is queued (up to {@code maxBatchSize} units, waiting at most {@code maxWaitMs} for more) and write
 * it with one commit.
 *
 * <p>One transaction at a time, unless a full batch waits: the writer taking a batch holds the turn while it writes,
 * so what arrives meanwhile waits and becomes the next, larger batch. So batches grow exactly when commits are the
 * wall. Only when at least {@code maxBatchSize} units are still queued behind the batch just taken does its writer
 * pass the turn on before writing, and another writer takes the next batch beside it (at most {@code writers} at
 * once): parallel transactions where a backlog needs them, never several small ones where one would do. Measured in
 * {@code scripts/bench} at C=16 and C=64: four writers each taking what was queued wrote batches of about two items,
 * and cost about 1.4 times the CPU per message (the process and its PostgreSQL backends) of one transaction at a time.
 *
 * <p>The queue is bounded: when it is full, {@link #offer} refuses. The writer completes every item itself (with its
 * result or the reason it failed). Items that claim the same exclusive key (an idempotency key, a message) never share
 * a transaction: a repeat waits for the next one.
 */
public final class GroupCommit<T extends GroupCommit.Item> implements Managed {
    private static final Logger LOG = LoggerFactory.getLogger(GroupCommit.class);
    /**
     * How long an idle writer waits for work before it looks at {@link #stop} again: each of a process's dozen writers
     * woke twenty times a second with 50 ms, about 1% of a core while idle.
     */
    private static final long IDLE_WAIT_MS = 250;

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
    /** Held by the writer taking the next batch, and kept while it writes unless a full batch waits behind it. */
    private final Semaphore turn = new Semaphore(1);
    /**
     * Held by the writer waiting for the next item (and then for the turn), so that at most one writer holds an item
     * taken off the queue while a transaction is in flight: everything else stays queued for its batch.
     */
    private final Semaphore pollPermit = new Semaphore(1);
    /** Units queued and not yet taken (the backlog that lets a second transaction start beside one in flight). */
    private final AtomicLong queuedUnits = new AtomicLong();

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
        if (queue.isEmpty() && slots.availablePermits() == writers && turn.tryAcquire()) {
            try {
                if (queue.isEmpty() && slots.tryAcquire()) {
                    try {
                        write(List.of(item));
                    } finally {
                        slots.release();
                    }
                    return true;
                }
            } finally {
                turn.release();
            }
        }
        queuedUnits.addAndGet(item.size());
        if (queue.offer(item)) {
            return true;
        }
        queuedUnits.addAndGet(-item.size());
        return false;
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
            boolean turnHeld = false;
            boolean pollHeld = false;
            T first = null;
            try {
                if (deferred.isEmpty()) {
                    // The waits end early for work; their length only bounds how soon an idle writer sees stop().
                    if (!pollPermit.tryAcquire(IDLE_WAIT_MS, TimeUnit.MILLISECONDS)) {
                        continue;
                    }
                    pollHeld = true;
                    first = take(queue.poll(IDLE_WAIT_MS, TimeUnit.MILLISECONDS));
                    if (first == null) {
                        continue;
                    }
                }
                // One transaction at a time: wait for the one in flight; what arrives meanwhile joins this batch.
                turn.acquire();
                turnHeld = true;
                slots.acquire();
                try {
                    batch = nextBatch(first, deferred);
                    if (pollHeld) {
                        // Only now may another writer take an item: the queue's items up to here are in this batch.
                        pollPermit.release();
                        pollHeld = false;
                    }
                    if (queuedUnits.get() >= maxBatchSize) {
                        // A full batch waits behind this one: another writer may take it while this one writes.
                        turn.release();
                        turnHeld = false;
                    }
                    if (!batch.isEmpty()) {
                        write(batch);
                    }
                } finally {
                    slots.release();
                }
            } catch (InterruptedException e) {
                if (first != null && !batch.contains(first)) {
                    first.fail("the writer was interrupted");
                }
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                // The writer completes its items itself; reaching here is a bug. Fail the batch loudly, keep the loop.
                LOG.error("{} writer loop failed; failing {} items", name, batch.size(), e);
                batch.forEach(item -> item.fail("internal error: " + e));
            } finally {
                if (turnHeld) {
                    turn.release();
                }
                if (pollHeld) {
                    pollPermit.release();
                }
            }
        }
    }

    /** An item taken off the queue: no longer counted as waiting. */
    private T take(T item) {
        if (item != null) {
            queuedUnits.addAndGet(-item.size());
        }
        return item;
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
            T next = take(queue.poll());
            if (next == null) {
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    break;
                }
                next = take(queue.poll(remaining, TimeUnit.NANOSECONDS));
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
