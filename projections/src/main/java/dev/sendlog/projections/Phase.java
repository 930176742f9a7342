package dev.sendlog.projections;

/** Where a message is in its life, finer than the public {@link MessageStatus}. */
public enum Phase {
    /** No event yet (only before the first fold step). */
    NONE,
    /** Waits for its sendAt (issue 26): no attempt is owed until a REDRIVEN with reason DUE. */
    SCHEDULED,
    /** An attempt is owed and waits for the poller. */
    PENDING,
    /** The job is on the send stream; a worker should claim it by the confirm-by deadline. */
    PUBLISHED,
    /** A worker holds the attempt and may be calling the provider. */
    CLAIMED,
    /** A transient failure; the next attempt is due at the deadline. */
    RETRY_WAIT,
    SENT,
    IN_TRANSIT,
    DELIVERED,
    UNDELIVERED,
    UNKNOWN,
    REJECTED,
    DEAD,
    /** Its validity passed before it was submitted: never submitted, never charged. */
    EXPIRED,
    /** Cancelled before a worker claimed it: never submitted, never charged. */
    CANCELLED;

    /** Nothing more is expected (a late final receipt may still move UNKNOWN). */
    public boolean isFinal() {
        return switch (this) {
            case DELIVERED, UNDELIVERED, UNKNOWN, REJECTED, DEAD, EXPIRED, CANCELLED -> true;
            default -> false;
        };
    }

    /** The provider has the message (it answered with an id). */
    public boolean isProviderAccepted() {
        return switch (this) {
            case SENT, IN_TRANSIT, DELIVERED, UNDELIVERED -> true;
            default -> false;
        };
    }
}
