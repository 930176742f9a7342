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
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gathers concurrent submissions into one transaction. Each writer thread takes what is queued (up
 * to {@code maxBatchMessages}, waiting at most {@code maxWaitMs} for more once it has one), writes it
 * with one commit, and only then completes the callers' futures. The queue is bounded: when it is
 * full, {@link #offer} refuses and the API answers 503.
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
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running;

    public GroupCommitter(AcceptWriter writer, int writers, int maxBatchMessages, int maxWaitMs, int queueCapacity,
                          MetricRegistry metrics) {
        this.writer = writer;
        this.writers = writers;
        this.maxBatchMessages = maxBatchMessages;
        this.maxWaitNanos = TimeUnit.MILLISECONDS.toNanos(maxWaitMs);
        this.queue = new ArrayBlockingQueue<>(queueCapacity);
        this.batchMessages = metrics.histogram("accept.batch.messages");
        this.commitTimer = metrics.timer("accept.commit");
        metrics.registerGauge("accept.queue.submissions", queue::size);
    }

    /** Queues a submission; false when the queue is full. */
    public boolean offer(Submission submission) {
        if (!running) {
            return false;
        }
        return queue.offer(submission);
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
                List<Submission> batch = nextBatch(deferred);
                if (batch.isEmpty()) {
                    continue;
                }
                int messages = batch.stream().mapToInt(Submission::size).sum();
                batchMessages.update(messages);
                try (Timer.Context ignored = commitTimer.time()) {
                    writer.write(batch);
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
    private List<Submission> nextBatch(List<Submission> deferred) throws InterruptedException {
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
        if (batch.isEmpty()) {
            Submission first = queue.poll(50, TimeUnit.MILLISECONDS);
            if (first == null) {
                return batch;
            }
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
