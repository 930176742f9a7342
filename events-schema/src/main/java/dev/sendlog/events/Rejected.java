package dev.sendlog.events;

/**
 * Final refusal. {@code stage} says who refused: {@code check} (our own checks, the provider was never
 * called), {@code suppression} (the recipient is on its tenant's suppression list when a worker claimed it; never
 * submitted) or {@code provider} (a permanent answer from the provider).
 */
public record Rejected(String stage, String reason) implements MessageEvent {
    public static final String STAGE_CHECK = "check";
    public static final String STAGE_PROVIDER = "provider";
    public static final String STAGE_SUPPRESSION = "suppression";
    /** API.md: a suppressed message's {@code lastError} is exactly this. */
    public static final String SUPPRESSED = "suppressed";

    /** The refusal of a message whose recipient its tenant suppressed. */
    public static Rejected suppressed() {
        return new Rejected(STAGE_SUPPRESSION, SUPPRESSED);
    }

    public Rejected {
        Require.text(stage, "stage");
        Require.text(reason, "reason");
    }

    /** What the message's {@code lastError} says: the stage and the reason, or just {@code suppressed} (API.md). */
    public String lastError() {
        return STAGE_SUPPRESSION.equals(stage) ? reason : stage + ": " + reason;
    }

    @Override
    public EventType type() {
        return EventType.REJECTED;
    }
}
