package dev.sendlog.events;

/**
 * The kinds of fact the log records. {@code code} is what a typed row's {@code type} column holds (never reused or
 * renumbered); the name and the payload version are the JSON form: the API shows it, compaction snapshots keep it,
 * and rows written before the lean log (V8) hold it, upcast on read (see {@link EventCodec}).
 *
 * <p>ACCEPTED is the messages row itself and PUBLISHED a batch's publication row: neither is appended as an event
 * row any more (rows of both written before V8 still read).
 */
public enum EventType {
    ACCEPTED(1, 1),
    PUBLISHED(2, 1),
    CLAIMED(3, 2),
    PROVIDER_ACCEPTED(4, 1),
    ATTEMPT_FAILED(5, 1),
    REJECTED(6, 1),
    REDRIVEN(7, 1),
    DEAD(8, 1),
    RECEIPT(9, 1),
    OUTCOME_UNKNOWN(10, 1),
    RESOLVED(11, 1),
    COMPACTED(12, 2),
    EXPIRED(13, 1),
    CANCELLED(14, 1),
    /** Never a typed row: the messages row's send_at, shown at seq 2 (see {@link Scheduled}). */
    SCHEDULED(15, 1);

    private static final EventType[] BY_CODE = new EventType[16];

    static {
        for (EventType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    private final short code;
    private final int currentVersion;

    EventType(int code, int currentVersion) {
        this.code = (short) code;
        this.currentVersion = currentVersion;
    }

    /** The typed row's type code. */
    public short code() {
        return code;
    }

    /** The type of a typed row's code; throws {@link UnreadableEventException} for a code this build does not know. */
    public static EventType ofCode(int code) {
        EventType t = code > 0 && code < BY_CODE.length ? BY_CODE[code] : null;
        if (t == null) {
            throw new UnreadableEventException("unknown event type code " + code);
        }
        return t;
    }

    /** The payload version that {@link EventCodec} writes for this type. */
    public int currentVersion() {
        return currentVersion;
    }
}
