package dev.sendlog.events;

/**
 * A status a message ends in, as the {@code status} column of the event that made it final holds it (the index that
 * search by a final status reads). The codes are stored: never reuse or renumber one.
 */
public enum FinalStatus {
    DELIVERED(1),
    UNDELIVERED(2),
    UNKNOWN(3),
    REJECTED(4),
    DEAD(5),
    EXPIRED(6),
    CANCELLED(7);

    private final short code;

    FinalStatus(int code) {
        this.code = (short) code;
    }

    public short code() {
        return code;
    }

    public static FinalStatus ofCode(int code) {
        for (FinalStatus s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        throw new UnreadableEventException("unknown final status code " + code);
    }

    /** The final status of this name, or null when the name is not a final status (SENT, ACCEPTED...). */
    public static FinalStatus ofName(String name) {
        for (FinalStatus s : values()) {
            if (s.name().equals(name)) {
                return s;
            }
        }
        return null;
    }
}
