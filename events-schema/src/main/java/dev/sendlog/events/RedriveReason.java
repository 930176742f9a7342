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
    ADMIN
}
