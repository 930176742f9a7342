package dev.sendlog.events;

import java.time.Instant;

/**
 * A worker took {@code attempt} and may call the provider. A claim, not proof of anything: only
 * {@link ProviderAccepted} says the provider has the message. If no result is recorded by
 * {@code deadline}, a timer re-drives (or, past the attempt limit, records an unknown outcome).
 */
public record Claimed(int attempt, String worker, Instant deadline) implements MessageEvent {
    public Claimed {
        Require.positive(attempt, "attempt");
        Require.text(worker, "worker");
        Require.present(deadline, "deadline");
    }

    @Override
    public EventType type() {
        return EventType.CLAIMED;
    }
}
