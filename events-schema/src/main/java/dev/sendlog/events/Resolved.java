package dev.sendlog.events;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * A support user resolved parked provider input for this message: applied a status by hand
 * ({@code status} is the receipt kind applied) or recorded that it was discarded.
 */
public record Resolved(long parkedId, Action action, ReceiptKind status, String note) implements MessageEvent {
    /** What was done with the parked input; written {@code "apply"} or {@code "discard"} in JSON (API and history). */
    public enum Action {
        APPLY,
        DISCARD;

        @JsonValue
        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The action {@code wire} names ({@code apply} or {@code discard}). */
        @JsonCreator
        public static Action ofWire(String wire) {
            for (Action a : values()) {
                if (a.wire().equals(wire)) {
                    return a;
                }
            }
            throw new IllegalArgumentException("action must be apply or discard, was " + wire);
        }
    }

    public Resolved {
        java.util.Objects.requireNonNull(action, "action");
        if (action == Action.APPLY && status == null) {
            throw new IllegalArgumentException("apply needs a status");
        }
    }

    @Override
    public EventType type() {
        return EventType.RESOLVED;
    }
}
