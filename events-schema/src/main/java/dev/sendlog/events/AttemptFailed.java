package dev.sendlog.events;

import java.time.Instant;

/** A transient failure of {@code attempt}; the next attempt is due at {@code nextAttemptAt}. */
public record AttemptFailed(int attempt, String error, Instant nextAttemptAt) implements MessageEvent {
    public AttemptFailed {
        Require.positive(attempt, "attempt");
        Require.text(error, "error");
        Require.present(nextAttemptAt, "nextAttemptAt");
    }

    @Override
    public EventType type() {
        return EventType.ATTEMPT_FAILED;
    }
}
