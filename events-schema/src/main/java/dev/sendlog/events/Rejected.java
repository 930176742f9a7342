package dev.sendlog.events;

/**
 * Final refusal. {@code stage} says who refused: {@code check} (our own checks, the provider was never
 * called) or {@code provider} (a permanent answer from the provider).
 */
public record Rejected(String stage, String reason) implements MessageEvent {
    public static final String STAGE_CHECK = "check";
    public static final String STAGE_PROVIDER = "provider";

    public Rejected {
        Require.text(stage, "stage");
        Require.text(reason, "reason");
    }

    @Override
    public EventType type() {
        return EventType.REJECTED;
    }
}
