package dev.sendlog.events;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * Back to pending: {@code attempt} is now owed. A failover (reason {@link RedriveReason#FAILED_OVER}) also names the
 * {@code gateway} the message moves to and the {@code error} of the one that certainly did not take it; every other
 * reason leaves both null, and the message keeps its gateway.
 */
public record Redriven(
        int attempt,
        RedriveReason reason,
        @JsonInclude(JsonInclude.Include.NON_NULL) String gateway,
        @JsonInclude(JsonInclude.Include.NON_NULL) String error)
        implements MessageEvent {
    public Redriven {
        Require.positive(attempt, "attempt");
        Require.present(reason, "reason");
        if (reason == RedriveReason.FAILED_OVER) {
            Require.text(gateway, "gateway");
            Require.text(error, "error");
        } else if (gateway != null || error != null) {
            throw new IllegalArgumentException("only a failover names a gateway and an error, not " + reason);
        }
    }

    public Redriven(int attempt, RedriveReason reason) {
        this(attempt, reason, null, null);
    }

    /** The same attempt owed again on {@code gateway}, because the message's gateway certainly did not take it. */
    public static Redriven failedOver(int attempt, String gateway, String error) {
        return new Redriven(attempt, RedriveReason.FAILED_OVER, gateway, error);
    }

    @Override
    public EventType type() {
        return EventType.REDRIVEN;
    }
}
