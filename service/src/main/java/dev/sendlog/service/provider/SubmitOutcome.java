package dev.sendlog.service.provider;

import java.time.Duration;

/** What a provider made of a submit. */
public sealed interface SubmitOutcome {
    /** The provider has the message and gave it this id. */
    record Accepted(String providerId) implements SubmitOutcome {
    }

    /** Refused for good (400, 422): the message is REJECTED with the provider's text. */
    record Permanent(int status, String text) implements SubmitOutcome {
    }

    /**
     * Too many requests (429): the provider refused the message for now because of its rate, so it certainly does not
     * have it. Not a failed attempt: the gateway's rate is lowered for a while and the same attempt submits again.
     * {@code retryAfter} is the provider's Retry-After, or null.
     */
    record Throttled(String reason, Duration retryAfter) implements SubmitOutcome {
    }

    /**
     * Not now (5xx, timeout, refused or cut connection). The provider may still have the message: the
     * retry carries the same idempotency key. {@code retryAfter} is the provider's Retry-After, or null.
     */
    record Transient(String reason, Duration retryAfter) implements SubmitOutcome {
    }
}
