package dev.sendlog.events;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;

/**
 * A poller put the job for {@code attempt} on the send stream. If no worker claims it by
 * {@code confirmBy}, a timer re-drives the message. {@code epoch} is the poller's shard lease epoch
 * (the fencing token that travels with the job). Since the lean log (V8) this is the batch's row in
 * {@code publications}, named by {@code publication}; older histories stored it as an event row of its own.
 */
public record Published(
        int attempt,
        long epoch,
        Instant confirmBy,
        @JsonInclude(JsonInclude.Include.NON_NULL) Long publication) implements MessageEvent {
    public Published {
        Require.positive(attempt, "attempt");
        Require.present(confirmBy, "confirmBy");
    }

    public Published(int attempt, long epoch, Instant confirmBy) {
        this(attempt, epoch, confirmBy, null);
    }

    @Override
    public EventType type() {
        return EventType.PUBLISHED;
    }
}
