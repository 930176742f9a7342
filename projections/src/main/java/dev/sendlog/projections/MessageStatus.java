package dev.sendlog.projections;

/** The ten statuses of the client API (API.md). */
public enum MessageStatus {
    ACCEPTED,
    SENDING,
    RETRYING,
    SENT,
    IN_TRANSIT,
    DELIVERED,
    UNDELIVERED,
    UNKNOWN,
    REJECTED,
    DEAD;

    public boolean isFinal() {
        return switch (this) {
            case DELIVERED, UNDELIVERED, UNKNOWN, REJECTED, DEAD -> true;
            default -> false;
        };
    }
}
