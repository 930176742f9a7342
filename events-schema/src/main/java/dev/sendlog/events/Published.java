package dev.sendlog.events;

import java.time.Instant;

/**
 * A poller put the job for {@code attempt} on the send stream. If no worker claims it by
 * {@code confirmBy}, a timer re-drives the message. {@code epoch} is the poller's shard lease epoch
 * (the fencing token that travels with the job).
 */
public record Published(int attempt, long epoch, Instant confirmBy) implements MessageEvent {
    public Published {
        Require.positive(attempt, "attempt");
        Require.present(confirmBy, "confirmBy");
    }

    @Override
    public EventType type() {
        return EventType.PUBLISHED;
    }
}
