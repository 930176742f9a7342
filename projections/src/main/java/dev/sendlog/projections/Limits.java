package dev.sendlog.projections;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * The bounds the deciders apply.
 *
 * @param maxAttempts     provider attempts before a message is DEAD (or UNKNOWN when the last claim expired)
 * @param maxPublishes    times a message may be put on the stream without a worker claiming it before it is
 *                        DEAD; high, because a lost Redis must change only latency
 * @param confirmTimeout  how long a published job may wait for a claim before it is published again
 * @param claimTimeout    how long a worker may hold a claim before the attempt counts as lost
 * @param atMostOnce      gateways without an idempotency key whose submits are never repeated blind (SMPP gateways
 *                        without {@code resubmitAfterTimeout}): a claim on one that expires may have reached it, so
 *                        the message is UNKNOWN rather than submitted again
 */
public record Limits(
        int maxAttempts, int maxPublishes, Duration confirmTimeout, Duration claimTimeout, Set<String> atMostOnce) {
    public Limits {
        if (maxAttempts < 1 || maxPublishes < 1) {
            throw new IllegalArgumentException("limits must be at least 1");
        }
        Objects.requireNonNull(confirmTimeout, "confirmTimeout");
        Objects.requireNonNull(claimTimeout, "claimTimeout");
        atMostOnce = Set.copyOf(atMostOnce);
    }

    /** Every gateway takes an idempotency key: an expired claim is submitted again with the same key. */
    public Limits(int maxAttempts, int maxPublishes, Duration confirmTimeout, Duration claimTimeout) {
        this(maxAttempts, maxPublishes, confirmTimeout, claimTimeout, Set.of());
    }

    /** Whether a submit to {@code gateway} that may have reached it is never repeated. */
    public boolean isAtMostOnce(String gateway) {
        return gateway != null && atMostOnce.contains(gateway);
    }

    public static Limits defaults() {
        return new Limits(8, 100, Duration.ofSeconds(60), Duration.ofSeconds(60));
    }
}
