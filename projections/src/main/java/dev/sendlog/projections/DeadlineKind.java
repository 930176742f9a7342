package dev.sendlog.projections;

/** What a timer does when a message's deadline passes with nothing newer appended. */
public enum DeadlineKind {
    /** PUBLISHED, never claimed: publish again. */
    CONFIRM,
    /** CLAIMED, no result: another attempt (or, at the limit, an unknown outcome). */
    CLAIM,
    /** RETRY_WAIT: the backoff has passed, the next attempt is due. */
    RETRY,
    /** SCHEDULED: its sendAt has come, attempt 1 is due (issue 26). */
    DUE
}
