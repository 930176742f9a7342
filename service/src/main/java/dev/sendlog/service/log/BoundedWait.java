package dev.sendlog.service.log;

import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waits for a future at most a bound, without a timer for every wait. A virtual thread that waits with a timeout
 * ({@code CompletableFuture.get(timeout, unit)}) gives the JVM's delay scheduler a timer and cancels it when woken: two
 * wake-ups of that scheduler's platform thread, each a system call, for every API request waiting for its group commit
 * and every send job waiting for its append. Here the waiter waits without a timeout on a copy of the future, and one
 * sweep every {@link #SWEEP_PERIOD} (a daemon thread for the whole JVM) fails the copies whose bound has passed with a
 * {@link TimeoutException}. A wait is late by at most the period, small against the bounds it serves (seconds).
 *
 * <p>Failing the copy leaves the future itself alone: its writer still completes it, and nothing else waits on it.
 */
public final class BoundedWait implements AutoCloseable {
    static final Duration SWEEP_PERIOD = Duration.ofMillis(100);

    /** The one every caller uses: its sweeper is a daemon thread that lives as long as the JVM. */
    private static final BoundedWait SHARED = new BoundedWait("bounded-wait-sweeper");

    private final ConcurrentLinkedQueue<Waiting> waiting = new ConcurrentLinkedQueue<>();
    private final ScheduledExecutorService sweeper;

    /** A set of waits with a sweeper thread of its own ({@code threadName}); the callers share {@link #get}'s. */
    BoundedWait(String threadName) {
        sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        sweeper.scheduleAtFixedRate(this::sweep, SWEEP_PERIOD.toNanos(), SWEEP_PERIOD.toNanos(), TimeUnit.NANOSECONDS);
    }

    private record Waiting(long deadlineNanos, CompletableFuture<?> copy) {}

    /**
     * The future's value once it completes, or {@link TimeoutException} when it has not within {@code bound} (late by
     * at most the sweep period).
     */
    public static <T> T get(CompletableFuture<T> future, Duration bound)
            throws InterruptedException, ExecutionException, TimeoutException {
        return SHARED.await(future, bound);
    }

    <T> T await(CompletableFuture<T> future, Duration bound)
            throws InterruptedException, ExecutionException, TimeoutException {
        if (future.isDone()) {
            return future.get();
        }
        CompletableFuture<T> copy = future.copy();
        waiting.add(new Waiting(System.nanoTime() + bound.toNanos(), copy));
        try {
            return copy.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof BoundPassed) {
                throw new TimeoutException("not completed within " + bound);
            }
            throw e;
        }
    }

    /** Drops the waits that ended, fails those whose bound has passed. */
    private void sweep() {
        long now = System.nanoTime();
        for (Iterator<Waiting> it = waiting.iterator(); it.hasNext(); ) {
            Waiting w = it.next();
            if (w.copy().isDone()) {
                it.remove();
            } else if (now - w.deadlineNanos() >= 0) {
                w.copy().completeExceptionally(new BoundPassed());
                it.remove();
            }
        }
    }

    /** How many waits the sweeper holds now (ended ones included until its next sweep). */
    int held() {
        return waiting.size();
    }

    /** Stops the sweeper (a set of waits of its own; never the shared one). */
    @Override
    public void close() {
        sweeper.shutdownNow();
    }

    /** The copy's failure when its bound passed: told apart from the future's own failures. */
    private static final class BoundPassed extends RuntimeException {
        BoundPassed() {
            super(null, null, false, false);
        }
    }
}
