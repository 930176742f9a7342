package dev.sendlog.projections;

/** What the callback worker does with a mapped receipt, given the message's state. */
public enum ReceiptDecision {
    /** Append it. */
    APPEND,
    /** The same provider status and timestamp were recorded before: change nothing. */
    DUPLICATE,
    /** The provider answered but our PROVIDER_ACCEPTED is not visible yet: hold and match again. */
    HOLD,
    /** The message went out through another gateway than the one the receipt came from (a failover moved it): park. */
    WRONG_GATEWAY,
    /** The receipt's provider id is none of the message's (neither its id nor any of its parts'): park. */
    ID_MISMATCH,
    /**
     * Matched only by a provider id, which providers reuse, to a message that is already final: the receipt may be for
     * a newer use of the id whose acceptance is not visible yet. Hold it rather than pin it on the wrong message, and
     * park it if it stays so.
     */
    AMBIGUOUS
}
