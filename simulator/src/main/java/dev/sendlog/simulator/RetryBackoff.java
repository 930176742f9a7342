package dev.sendlog.simulator;

/** Exponential backoff between callback attempts: 100 ms after the first, doubling, at most 5 s. */
final class RetryBackoff {
    static final long FIRST_DELAY_MS = 100;
    static final long MAX_DELAY_MS = 5_000;

    private RetryBackoff() {}

    /** The wait after the failed attempt number {@code failedAttempt} (1 for the first). */
    static long delayMs(int failedAttempt) {
        int doublings = Math.min(failedAttempt - 1, 20);
        return Math.min(MAX_DELAY_MS, FIRST_DELAY_MS << doublings);
    }
}
