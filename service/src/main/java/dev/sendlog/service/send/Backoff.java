package dev.sendlog.service.send;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * When the next attempt is due: {@code base * 2^(attempt-1)} capped at {@code cap}, with equal jitter
 * (half fixed, half random) so retries of a failed batch spread out; a provider's Retry-After wins when
 * it asks for longer.
 */
public final class Backoff {
    private final Duration base;
    private final Duration cap;

    public Backoff(Duration base, Duration cap) {
        this.base = base;
        this.cap = cap;
    }

    public Duration after(int attempt, Duration retryAfter) {
        long exp = base.toMillis() * (1L << Math.min(30, Math.max(0, attempt - 1)));
        long capped = Math.min(cap.toMillis(), exp);
        long half = capped / 2;
        long delay = half + (half > 0 ? ThreadLocalRandom.current().nextLong(half + 1) : 0);
        if (retryAfter != null && retryAfter.toMillis() > delay) {
            delay = Math.min(retryAfter.toMillis(), cap.toMillis());
        }
        return Duration.ofMillis(delay);
    }
}
