package dev.sendlog.events;

/**
 * The provider answered the submit of {@code attempt} with its own id. Written in the same
 * transaction as the ledger charge. Provider ids are unique only per gateway and only for a while.
 */
public record ProviderAccepted(int attempt, String gateway, String providerId) implements MessageEvent {
    public ProviderAccepted {
        Require.positive(attempt, "attempt");
        Require.text(gateway, "gateway");
        Require.text(providerId, "providerId");
    }

    @Override
    public EventType type() {
        return EventType.PROVIDER_ACCEPTED;
    }
}
