package dev.sendlog.events;

import java.time.Instant;

/**
 * A delivery receipt from the provider, mapped to {@code kind}. The provider's own status and
 * timestamp are kept as they came; {@code inboxId} points at the raw callback body.
 */
public record Receipt(
        ReceiptKind kind,
        String gateway,
        String providerId,
        String providerStatus,
        Instant providerTimestamp,
        String errorCode,
        long inboxId) implements MessageEvent {
    public Receipt {
        Require.present(kind, "kind");
        Require.text(gateway, "gateway");
        Require.text(providerId, "providerId");
        Require.text(providerStatus, "providerStatus");
        Require.present(providerTimestamp, "providerTimestamp");
    }

    @Override
    public EventType type() {
        return EventType.RECEIPT;
    }
}
