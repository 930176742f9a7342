package dev.sendlog.events;

/** Why a message went back to pending. */
public enum RedriveReason {
    /** The backoff after a transient failure has passed. */
    RETRY_DUE,
    /** Published, but no worker claimed it by the confirm-by deadline (the job was lost or is stuck). */
    PUBLISH_TIMEOUT,
    /** Claimed, but no result was recorded by the claim deadline (the worker died or hangs). */
    CLAIM_TIMEOUT,
    /** A support user asked for it. */
    ADMIN,
    /**
     * A worker that was shutting down gave back a claim before calling the provider: the same attempt is owed again
     * (stored as its ordinal + 1, so a new reason goes last).
     */
    HANDED_BACK,
    /** A scheduled message's {@code sendAt} has come: attempt 1 is owed (issue 26). */
    DUE,
    /**
     * The message's gateway certainly did not take it (a refused connection, a refusal before acceptance, the gateway
     * marked down and not called): the same attempt is owed again on the next gateway of its route (issue 29).
     */
    FAILED_OVER
}
