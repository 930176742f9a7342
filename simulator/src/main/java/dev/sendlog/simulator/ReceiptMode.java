package dev.sendlog.simulator;

/** Which delivery receipts the simulator sends for an accepted message, in which order. */
public enum ReceiptMode {
    /** {@code intermediateReceipts} intermediates, then one final. */
    FINAL,
    /** {@code intermediateReceipts} intermediates and never a final. */
    INTERMEDIATE_ONLY,
    /** No callback at all. */
    NONE,
    /** Intermediates, then the same final twice (byte for byte). */
    DUPLICATED,
    /** The final first, then the intermediates (at least one), whose timestamps are earlier than the final's. */
    OUT_OF_ORDER
}
