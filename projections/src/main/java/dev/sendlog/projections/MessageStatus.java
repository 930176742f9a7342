package dev.sendlog.projections;

/** The statuses of the client API (API.md). */
public enum MessageStatus {
    SCHEDULED,
    ACCEPTED,
    SENDING,
    RETRYING,
    SENT,
    IN_TRANSIT,
    DELIVERED,
    UNDELIVERED,
    UNKNOWN,
    REJECTED,
    DEAD,
    EXPIRED,
    CANCELLED;

    public boolean isFinal() {
        return switch (this) {
            case DELIVERED, UNDELIVERED, UNKNOWN, REJECTED, DEAD, EXPIRED, CANCELLED -> true;
            default -> false;
        };
    }
}
