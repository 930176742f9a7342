package dev.sendlog.events;

/**
 * A support user resolved parked provider input for this message: applied a status by hand
 * ({@code status} is the receipt kind applied) or recorded that it was discarded.
 */
public record Resolved(long parkedId, String action, ReceiptKind status, String note) implements MessageEvent {
    public static final String APPLY = "apply";
    public static final String DISCARD = "discard";

    public Resolved {
        Require.text(action, "action");
        if (!APPLY.equals(action) && !DISCARD.equals(action)) {
            throw new IllegalArgumentException("action must be apply or discard, was " + action);
        }
        if (APPLY.equals(action) && status == null) {
            throw new IllegalArgumentException("apply needs a status");
        }
    }

    @Override
    public EventType type() {
        return EventType.RESOLVED;
    }
}
