package dev.sendlog.events;

/**
 * We cannot know what happened: no final receipt came within the reconciliation window, or a claim
 * expired at the attempt limit so the provider may or may not have the message. Never "failed";
 * a final receipt that arrives later still wins.
 */
public record OutcomeUnknown(String reason) implements MessageEvent {
    public OutcomeUnknown {
        Require.text(reason, "reason");
    }

    @Override
    public EventType type() {
        return EventType.OUTCOME_UNKNOWN;
    }
}
