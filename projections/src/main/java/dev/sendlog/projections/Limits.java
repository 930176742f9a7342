package dev.sendlog.projections;

import java.time.Duration;
import java.util.Objects;

/**
 * The bounds the deciders apply.
 *
 * @param maxAttempts     provider attempts before a message is DEAD (or UNKNOWN when the last claim expired)
 * @param maxPublishes    times a message may be put on the stream without a worker claiming it before it is
 *                        DEAD; high, because a lost Redis must change only latency
 * @param confirmTimeout  how long a published job may wait for a claim before it is published again
 * @param claimTimeout    how long a worker may hold a claim before the attempt counts as lost
 */
public record Limits(int maxAttempts, int maxPublishes, Duration confirmTimeout, Duration claimTimeout) {
    public Limits {
        if (maxAttempts < 1 || maxPublishes < 1) {
            throw new IllegalArgumentException("limits must be at least 1");
        }
        Objects.requireNonNull(confirmTimeout, "confirmTimeout");
        Objects.requireNonNull(claimTimeout, "claimTimeout");
    }

    public static Limits defaults() {
        return new Limits(8, 100, Duration.ofSeconds(60), Duration.ofSeconds(60));
    }
}
