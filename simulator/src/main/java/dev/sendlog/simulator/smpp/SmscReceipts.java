package dev.sendlog.simulator.smpp;

/** Which delivery receipts the SMSC simulator sends for each accepted submit_sm (each part of a long message). */
public enum SmscReceipts {
    /** One final receipt, with {@link SmscConfig#finalStatus()} as its stat word. */
    FINAL,
    /** One intermediate receipt ({@code stat:ENROUTE}) and never a final one. */
    INTERMEDIATE_ONLY,
    /** No receipt at all. */
    NONE
}
