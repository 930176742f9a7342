package dev.sendlog.simulator.smpp;

/**
 * The SMSC's own rate: a bucket of one second's worth of tokens, full at start, refilled continuously. A fixed
 * one-second window would let twice the rate through around a window's edge; a bucket does not.
 */
final class TokenBucket {
    private final int perSecond;
    private double tokens;
    private long lastNanos;

    /** A bucket for {@code perSecond} tokens a second; 0 means no limit. */
    TokenBucket(int perSecond) {
        this.perSecond = perSecond;
        this.tokens = perSecond;
        this.lastNanos = System.nanoTime();
    }

    int perSecond() {
        return perSecond;
    }

    synchronized boolean tryTake() {
        if (perSecond == 0) {
            return true;
        }
        long now = System.nanoTime();
        tokens = Math.min(perSecond, tokens + (now - lastNanos) * perSecond / 1e9);
        lastNanos = now;
        if (tokens >= 1.0) {
            tokens -= 1.0;
            return true;
        }
        return false;
    }
}
