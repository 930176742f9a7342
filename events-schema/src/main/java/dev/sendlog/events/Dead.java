package dev.sendlog.events;

/** Final: the attempt limit was reached without the provider accepting the message. */
public record Dead(int attempts, String reason) implements MessageEvent {
    public Dead {
        Require.positive(attempts, "attempts");
        Require.text(reason, "reason");
    }

    @Override
    public EventType type() {
        return EventType.DEAD;
    }
}
