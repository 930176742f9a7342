package dev.sendlog.events;

import java.time.Instant;

/**
 * The message waits for its {@code sendAt} before any attempt is owed (issue 26). Like ACCEPTED it is never a row of
 * its own: the messages row holds {@code send_at}, written once at accept, and every reader shows this event at seq 2
 * of a message whose {@code sendAt} was after its acceptance. When it is due, a REDRIVEN with reason
 * {@link RedriveReason#DUE} owes attempt 1 and the poller publishes it like any redrive.
 */
public record Scheduled(Instant sendAt) implements MessageEvent {
    public Scheduled {
        Require.present(sendAt, "sendAt");
    }

    @Override
    public EventType type() {
        return EventType.SCHEDULED;
    }
}
