package dev.sendlog.events;

/** What a provider status means once mapped through the gateway's vocabulary. */
public enum ReceiptKind {
    INTERMEDIATE,
    DELIVERED,
    UNDELIVERED,
    UNKNOWN;

    public boolean isFinal() {
        return this == DELIVERED || this == UNDELIVERED;
    }
}
