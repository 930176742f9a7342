package dev.sendlog.simulator.smpp;

/** How the SMSC simulator writes the message_id it assigns in submit_sm_resp. */
public enum SmscIdFormat {
    /** Lower-case hexadecimal without leading zeros, for example {@code 1f4}. */
    HEX,
    /** Decimal, for example {@code 500}. */
    DECIMAL;

    String format(long id) {
        return this == HEX ? Long.toHexString(id) : Long.toString(id);
    }
}
