package dev.sendlog.events;

/**
 * Final: the message's validity (its {@code validUntil}, a fact of the message row) passed before it was submitted. It
 * is never submitted after this and never charged. The payload is empty on purpose: the time it expired at is the
 * message row's, and what decided it (a worker at its claim, a timer) is the event's actor.
 */
public record Expired() implements MessageEvent {
    @Override
    public EventType type() {
        return EventType.EXPIRED;
    }
}
