package dev.sendlog.infra;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Polling with a deadline, for conditions that offer no notification (a port opening, a foreign pid ending). */
final class Poll {
    private static final long FIRST_INTERVAL_MS = 20;
    private static final long MAX_INTERVAL_MS = 200;

    private final long deadlineNanos;
    private long intervalMs = FIRST_INTERVAL_MS;

    private Poll(Duration timeout) {
        this.deadlineNanos = System.nanoTime() + timeout.toNanos();
    }

    static Poll within(Duration timeout) {
        return new Poll(timeout);
    }

    /** Whether {@code condition} became true before the deadline. */
    static boolean until(Duration timeout, BooleanSupplier condition) {
        Poll poll = within(timeout);
        while (!condition.getAsBoolean()) {
            if (!poll.pauseBeforeNextTry()) {
                return condition.getAsBoolean();
            }
        }
        return true;
    }

    /** Sleeps a little (longer each time, never past the deadline); false once the deadline has passed. */
    boolean pauseBeforeNextTry() {
        long remainingMs = (deadlineNanos - System.nanoTime()) / 1_000_000;
        if (remainingMs <= 0) {
            return false;
        }
        try {
            Thread.sleep(Math.min(intervalMs, remainingMs));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting", e);
        }
        intervalMs = Math.min(intervalMs * 2, MAX_INTERVAL_MS);
        return true;
    }
}
