package dev.sendlog.events;

/** Back to pending: {@code attempt} is now owed. */
public record Redriven(int attempt, RedriveReason reason) implements MessageEvent {
    public Redriven {
        Require.positive(attempt, "attempt");
        Require.present(reason, "reason");
    }

    @Override
    public EventType type() {
        return EventType.REDRIVEN;
    }
}
