package dev.sendlog.events;

/**
 * The kinds of fact the log records, with the payload version written today.
 * The name is what the {@code type} column holds; a payload of an older version is upcast on read
 * (see {@link EventCodec}).
 */
public enum EventType {
    ACCEPTED(1),
    PUBLISHED(1),
    CLAIMED(2),
    PROVIDER_ACCEPTED(1),
    ATTEMPT_FAILED(1),
    REJECTED(1),
    REDRIVEN(1),
    DEAD(1),
    RECEIPT(1),
    OUTCOME_UNKNOWN(1),
    RESOLVED(1),
    COMPACTED(2);

    private final int currentVersion;

    EventType(int currentVersion) {
        this.currentVersion = currentVersion;
    }

    /** The payload version that {@link EventCodec} writes for this type. */
    public int currentVersion() {
        return currentVersion;
    }
}
