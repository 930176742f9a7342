package dev.sendlog.compactor;

/** The steps of compacting one day, in order. Each ends in a state a crashed run resumes from. */
public enum CompactionStep {
    /** The snapshots of every message of the day are in the side table. */
    COPIED,
    /** The original partition no longer takes inserts (DETACH ... CONCURRENTLY, or its FINALIZE). */
    DETACHED,
    /** Events that arrived in the original between the copy and the detach are in the side table too. */
    RECONCILED,
    /** The side table serves the day's range. */
    ATTACHED,
    /** The original partition is gone. */
    DROPPED,
    /** The side table has the day's partition name and the day is recorded as compacted. */
    DONE
}
