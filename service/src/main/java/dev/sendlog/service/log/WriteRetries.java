package dev.sendlog.service.log;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * Retries a write the database refused (unreachable, failing over) with doubling pauses, 50 ms up to 2 s, for a while.
 * An interrupt ends the retries at once: the thread is being stopped, and every pause would end at once too, so the
 * retries would spin against the database until the limit.
 */
public final class WriteRetries {
    private static final long FIRST_PAUSE_MS = 50;
    private static final long MAX_PAUSE_MS = 2000;

    private WriteRetries() {}

    /**
     * Runs {@code attempt} until it returns, {@code beforeRetry} before each retry. Throws the last failure once
     * {@code limit} has passed or the thread is interrupted (the interrupt stays set).
     */
    public static <T> T retry(Duration limit, Supplier<T> attempt, Runnable beforeRetry) {
        long deadline = System.nanoTime() + limit.toNanos();
        long pauseMs = FIRST_PAUSE_MS;
        while (true) {
            try {
                return attempt.get();
            } catch (RuntimeException e) {
                if (Thread.currentThread().isInterrupted() || System.nanoTime() - deadline > 0 || !pause(pauseMs)) {
                    throw e;
                }
                pauseMs = Math.min(MAX_PAUSE_MS, pauseMs * 2);
                beforeRetry.run();
            }
        }
    }

    private static boolean pause(long ms) {
        try {
            Thread.sleep(ms);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
