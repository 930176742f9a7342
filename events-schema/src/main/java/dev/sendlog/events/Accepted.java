package dev.sendlog.events;

/** The message was committed by the API; the first event of every message. Attempt 1 is now owed. */
public record Accepted(String tenant, String gateway) implements MessageEvent {
    public Accepted {
        Require.text(tenant, "tenant");
        Require.text(gateway, "gateway");
    }

    @Override
    public EventType type() {
        return EventType.ACCEPTED;
    }
}
