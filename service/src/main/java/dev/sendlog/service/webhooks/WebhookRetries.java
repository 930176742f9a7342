package dev.sendlog.service.webhooks;

import java.time.Duration;
import java.time.Instant;

/**
 * When a failed delivery is tried again (API.md, "Status webhooks"): {@code first} after the first failure, doubling at
 * each further one up to {@code max}; a {@code Retry-After} of the endpoint's is honoured as it is (never sooner, and
 * not capped: the endpoint said when). A retry that would fall after the delivery's window ({@code window} from when it
 * became owed) is not made: the delivery is DEAD instead.
 */
public record WebhookRetries(Duration first, Duration max, Duration window) {
    /**
     * When the delivery is due again after its {@code failures}-th failed attempt at {@code now}, or null when it is
     * DEAD. {@code retryAfter} is the endpoint's Retry-After, null when it sent none.
     */
    public Instant next(Instant now, int failures, Duration retryAfter, Instant owedSince) {
        Duration wait = backoff(failures);
        if (retryAfter != null) {
            wait = retryAfter.isNegative() ? Duration.ZERO : retryAfter;
        }
        Instant next = now.plus(wait);
        return next.isAfter(owedSince.plus(window)) ? null : next;
    }

    /** {@code first} doubled {@code failures - 1} times, at most {@code max}. */
    public Duration backoff(int failures) {
        Duration wait = first;
        for (int i = 1; i < failures && wait.compareTo(max) < 0; i++) {
            wait = wait.multipliedBy(2);
        }
        return wait.compareTo(max) > 0 ? max : wait;
    }
}
