package dev.sendlog.projections;

/** What the callback worker does with a mapped receipt, given the message's state. */
public enum ReceiptDecision {
    /** Append it. */
    APPEND,
    /** The same provider status and timestamp were recorded before: change nothing. */
    DUPLICATE,
    /** The provider answered but our PROVIDER_ACCEPTED is not visible yet: hold and match again. */
    HOLD
}
