package dev.sendlog.events;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;

/**
 * A delivery receipt from the provider, mapped to {@code kind}. The provider's own status and
 * timestamp are kept as they came; {@code inboxId} points at the raw body (a callback's, or a status query's answer);
 * {@code source} says whether the provider told us (a callback) or we asked (a status query).
 */
public record Receipt(
        ReceiptKind kind,
        String gateway,
        String providerId,
        String providerStatus,
        Instant providerTimestamp,
        String errorCode,
        long inboxId,

        @JsonInclude(value = JsonInclude.Include.CUSTOM, valueFilter = ReceiptSource.OmitCallback.class)
        ReceiptSource source)
        implements MessageEvent {
    public Receipt {
        source = source == null ? ReceiptSource.CALLBACK : source;
        Require.present(kind, "kind");
        Require.text(gateway, "gateway");
        Require.text(providerId, "providerId");
        Require.text(providerStatus, "providerStatus");
        Require.present(providerTimestamp, "providerTimestamp");
    }

    /** A receipt a callback told us. */
    public Receipt(
            ReceiptKind kind,
            String gateway,
            String providerId,
            String providerStatus,
            Instant providerTimestamp,
            String errorCode,
            long inboxId) {
        this(kind, gateway, providerId, providerStatus, providerTimestamp, errorCode, inboxId, ReceiptSource.CALLBACK);
    }

    @Override
    public EventType type() {
        return EventType.RECEIPT;
    }
}
