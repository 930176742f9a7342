package dev.sendlog.projections;

import java.time.Instant;
import java.util.Objects;

/** A timer carried by a non-final state. */
public record Deadline(DeadlineKind kind, Instant at) {
    public Deadline {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(at, "at");
    }
}
