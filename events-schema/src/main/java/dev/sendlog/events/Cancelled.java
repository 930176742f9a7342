package dev.sendlog.events;

/**
 * Final: the client (or support) cancelled the message before a worker claimed it for sending. Appended with the
 * expected seq, so of a cancel and a claim racing for one message exactly one wins. Who cancelled is the event's actor;
 * nothing else is needed.
 */
public record Cancelled() implements MessageEvent {
    @Override
    public EventType type() {
        return EventType.CANCELLED;
    }
}
