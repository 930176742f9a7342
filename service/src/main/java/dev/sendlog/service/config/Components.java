package dev.sendlog.service.config;

import java.util.EnumSet;
import java.util.Set;

/** The parts of the pipeline a process runs. {@code server} runs all of them; other commands run one. */
public enum Components {
    /** The HTTP API: accept, read, search, callbacks intake, admin. */
    API,
    /** Shard leases, tailing the log and publishing work to the send stream. */
    POLLER,
    SEND_WORKER,
    CALLBACK_WORKER,
    /** Status webhook deliveries: the dispatcher that puts owed deliveries on the webhook stream, and their workers. */
    WEBHOOK_WORKER,
    /** Timers, projector, reconciliation, partitions, compaction, idempotency-key expiry. */
    MAINTENANCE;

    public static Set<Components> all() {
        return EnumSet.allOf(Components.class);
    }
}
