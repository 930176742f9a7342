package dev.sendlog.service.core;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import io.dropwizard.lifecycle.Managed;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gathers concurrent submissions into one transaction. At most {@code writers} transactions run at once
 * (a semaphore). A submission that finds nothing queued and no transaction in flight is written at once on
 * the caller's thread, a batch of one with no hand-off. Otherwise it is queued, and the writer threads take
 * what is queued (up to {@code maxBatchMessages}, waiting at most {@code maxWaitMs} for more), write it
 * with one commit, and only then complete the callers' futures. So batches grow exactly when commits are
 * the wall. The queue is bounded: when it is full, {@link #offer} refuses and the API answers 503.
 */
public final class GroupCommitter implements Managed {
    private static final Logger LOG = LoggerFactory.getLogger(GroupCommitter.class);

    private final AcceptWriter writer;
    private final BlockingQueue<Submission> queue;
    private final int writers;
    private final int maxBatchMessages;
    private final long maxWaitNanos;
    private final Histogram batchMessages;
    private final Timer commitTimer;
    private final Semaphore slots;
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running;

    public GroupCommitter(AcceptWriter writer, int writers, int maxBatchMessages, int maxWaitMs, int queueCapacity,
                          MetricRegistry metrics) {
        this.writer = writer;
        this.writers = writers;
        this.maxBatchMessages = maxBatchMessages;
        this.maxWaitNanos = TimeUnit.MILLISECONDS.toNanos(maxWaitMs);
        this.queue = new ArrayBlockingQueue<>(queueCapacity);
        this.slots = new Semaphore(writers);
        this.batchMessages = metrics.histogram("accept.batch.messages");
        this.commitTimer = metrics.timer("accept.commit");
        metrics.registerGauge("accept.queue.submissions", queue::size);
    }

    /**
     * Writes the submission now if nothing waits and a writer slot is free, else queues it; false when the
     * queue is full. Either way the outcome arrives on the submission's future.
     */
    public boolean offer(Submission submission) {
        if (!running) {
            return false;
        }
        if (queue.isEmpty() && slots.availablePermits() == writers && slots.tryAcquire()) {
            try {
                write(List.of(submission));
            } finally {
                slots.release();
            }
            return true;
        }
        return queue.offer(submission);
    }

    private void write(List<Submission> batch) {
        batchMessages.update(batch.stream().mapToInt(Submission::size).sum());
        try (Timer.Context ignored = commitTimer.time()) {
            writer.write(batch);
        }
    }

    @Override
    public void start() {
        running = true;
        for (int i = 0; i < writers; i++) {
            Thread t = Thread.ofPlatform().name("accept-writer-" + i).daemon(true).start(this::loop);
            threads.add(t);
        }
    }

    @Override
    public void stop() throws InterruptedException {
        running = false;
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(10));
        }
        List<Submission> left = new ArrayList<>();
        queue.drainTo(left);
        left.forEach(s -> s.outcome().complete(new SubmissionOutcome.Unavailable("the service is shutting down")));
    }

    private void loop() {
        List<Submission> deferred = new ArrayList<>();
        while (running || !queue.isEmpty() || !deferred.isEmpty()) {
            try {
                Submission first = deferred.isEmpty() ? queue.poll(50, TimeUnit.MILLISECONDS) : null;
                if (first == null && deferred.isEmpty()) {
                    continue;
                }
                slots.acquire();
                try {
                    List<Submission> batch = nextBatch(first, deferred);
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
                // AcceptWriter completes every future itself; reaching here is a bug, so keep the writer alive and say so.
                LOG.error("accept writer loop failed", e);
            }
        }
    }

    /**
     * The next transaction's submissions: repeats of an idempotency key already in the batch wait for the
     * next one, so a transaction never holds two claims on one key.
     */
    private List<Submission> nextBatch(Submission first, List<Submission> deferred) throws InterruptedException {
        List<Submission> batch = new ArrayList<>();
        Set<String> keys = new HashSet<>();
        int messages = 0;
        List<Submission> stillDeferred = new ArrayList<>();
        for (Submission s : deferred) {
            if (messages < maxBatchMessages && addIfKeysFree(s, keys)) {
                batch.add(s);
                messages += s.size();
            } else {
                stillDeferred.add(s);
            }
        }
        deferred.clear();
        deferred.addAll(stillDeferred);
        if (first != null) {
            if (addIfKeysFree(first, keys)) {
                batch.add(first);
                messages += first.size();
            } else {
                deferred.add(first);
            }
        }
        long deadline = System.nanoTime() + maxWaitNanos;
        while (messages < maxBatchMessages) {
            Submission next = queue.poll();
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
                messages += next.size();
            } else {
                deferred.add(next);
            }
        }
        return batch;
    }

    private static boolean addIfKeysFree(Submission s, Set<String> keys) {
        List<String> mine = new ArrayList<>();
        for (MessageDraft d : s.drafts()) {
            if (d.idempotencyKey() != null) {
                String k = s.tenant() + "\u0000" + d.idempotencyKey();
                if (keys.contains(k)) {
                    return false;
                }
                mine.add(k);
            }
        }
        keys.addAll(mine);
        return true;
    }
}
