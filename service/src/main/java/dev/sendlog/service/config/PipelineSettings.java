package dev.sendlog.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.ArrayList;
import java.util.List;

/** How work is spread and bounded: shards, the poller, the send workers, timers and retries. */
public class PipelineSettings {
    /**
     * Logical shards of the normal lane; a normal message belongs to one (hash of its id) and pollers own shards by lease.
     * Fixed for the life of a database: changing it moves messages between shards.
     */
    @Min(1)
    @Max(1024)
    @JsonProperty
    public int shards = 16;

    /**
     * Shards of the {@code high} priority lane, after the {@code shards} of the normal lane (see
     * {@code dev.sendlog.events.Lanes}): high work has tail cursors, a send stream and workers of its own. Fixed for the
     * life of a database like {@code shards}; only adding to it is safe.
     */
    @Min(1)
    @Max(64)
    @JsonProperty
    public int highShards = 2;

    /** Shards of each tenant lane (a tenant with a {@code weight}), placed after the lanes before it. */
    @Min(1)
    @Max(64)
    @JsonProperty
    public int tenantShards = 2;

    /**
     * The normal and high lanes' shards as configured, without tenant lanes: for tools and tests that need no database.
     * The running service takes its lanes from the database's layout ({@code db.LaneLayout}).
     */
    public dev.sendlog.events.Lanes lanes() {
        return new dev.sendlog.events.Lanes(shards, highShards);
    }

    /** A shard lease lasts this long; it is renewed at a third of it, and a dead poller's shards move after it. */
    @NotNull
    @JsonProperty
    public Duration leaseTtl = Duration.seconds(15);

    /** Work events read per tail query (per round, over all owned shards). */
    @Min(1)
    @Max(10_000)
    @JsonProperty
    public int pollBatchSize = 500;

    /** The poller drains until the tail is empty, but at most this many batches before it checks its leases again. */
    @Min(1)
    @JsonProperty
    public int maxBatchesPerRound = 50;

    /** How long the poller waits after finding the tail empty. */
    @Min(1)
    @Max(10_000)
    @JsonProperty
    public int idlePollMs = 20;

    /**
     * How long a poller without notifications (the normal and tenant lanes') waits after an empty read once it has found
     * nothing for {@link #QUIET_AFTER_MS}: an idle process reads its tail a few times a second instead of fifty. The first
     * work after a quiet spell waits up to this long longer to be published; once a read finds work, the poller reads
     * every {@link #idlePollMs} again. A value at most {@code idlePollMs} turns the quiet cadence off.
     */
    @Min(1)
    @Max(10_000)
    @JsonProperty
    public int quietPollMs = 100;

    /** How long a poller finds nothing before it reads every {@link #quietPollMs}. */
    public static final long QUIET_AFTER_MS = 1_000;

    /**
     * How long the high lane's poller waits after finding its tail empty while it listens for the accepts' notifications
     * (dispatch.HighWorkSignal): a high message wakes it at once; this bounds only the work no accept announces (a
     * retry, a scheduled send come due). Without the listener it waits {@code idlePollMs}.
     */
    @Min(1)
    @Max(60_000)
    @JsonProperty
    public int highIdlePollMs = 250;

    /**
     * The poller stops publishing while the send stream holds this many entries. The backlog waits in the log,
     * not in Redis: the queue store stays small and bounded, and a published job is claimed long before its
     * confirm-by deadline (a job that waits longer than that is published again for nothing).
     */
    @Min(1)
    @JsonProperty
    public long maxStreamEntries = 5_000;

    /** A published job not claimed by then is published again (the job was lost, e.g. Redis restarted empty). */
    @NotNull
    @JsonProperty
    public Duration confirmTimeout = Duration.seconds(30);

    /** A claim with no result by then counts as a lost attempt (the worker died or hangs). */
    @NotNull
    @JsonProperty
    public Duration claimTimeout = Duration.seconds(60);

    /** Provider attempts before a message is DEAD (or UNKNOWN when its last claim expired). */
    @Min(1)
    @JsonProperty
    public int maxAttempts = 8;

    /** Times a message may be published without any worker claiming it before it is DEAD. */
    @Min(1)
    @JsonProperty
    public int maxPublishes = 100;

    /** Backoff after a transient failure: base * 2^(attempt-1), capped, with full jitter; Retry-After wins when longer. */
    @NotNull
    @JsonProperty
    public Duration retryBase = Duration.seconds(1);

    @NotNull
    @JsonProperty
    public Duration retryCap = Duration.minutes(10);

    /** A SENT or IN_TRANSIT message with no final receipt after this becomes UNKNOWN (never UNDELIVERED). */
    @NotNull
    @JsonProperty
    public Duration reconcileWindow = Duration.hours(48);

    @Valid
    @NotNull
    @JsonProperty
    public ReconcileSettings reconcile = new ReconcileSettings();

    /** How often the timers look for due publication checks (they drain while checks are due). */
    @Min(10)
    @JsonProperty
    public int timerIntervalMs = 500;

    @Valid
    @NotNull
    @JsonProperty
    public WorkerSettings sendWorker = new WorkerSettings();

    @Valid
    @NotNull
    @JsonProperty
    public CheckSettings checks = new CheckSettings();

    @Valid
    @NotNull
    @JsonProperty
    public SuppressionSettings suppression = new SuppressionSettings();

    /**
     * How the poller learns of new work: {@code polling} tails the log by query (the default, any PostgreSQL);
     * {@code cdc} reads inserts from a logical replication slot (needs {@code wal_level=logical}; see {@link CdcSettings}).
     */
    @NotNull
    @JsonProperty
    public Feed feed = Feed.POLLING;

    @Valid
    @NotNull
    @JsonProperty
    public CdcSettings cdc = new CdcSettings();

    public enum Feed {
        POLLING,
        CDC
    }

    /** Group commit of the pipeline's appends (claims, results, timers). */
    @Min(1)
    @Max(64)
    @JsonProperty
    public int appendWriters = 4;

    /** The change-data-capture feed: one logical replication slot, read by one poller process at a time. */
    public static class CdcSettings {
        /** The slot's name; unique in the PostgreSQL cluster (slots are cluster-wide, not per database). */
        @NotNull
        @jakarta.validation.constraints.Pattern(regexp = "[a-z0-9_]{1,63}")
        @JsonProperty
        public String slot = "sendlog_feed";

        /** The publication on message_events (inserts of work events only), created at start if missing. */
        @NotNull
        @jakarta.validation.constraints.Pattern(regexp = "[a-z0-9_]{1,63}")
        @JsonProperty
        public String publication = "sendlog_feed";

        /** Rows published per round trip at most; a round ends sooner when nothing more has arrived. */
        @Min(1)
        @Max(100_000)
        @JsonProperty
        public int maxBatch = 2000;

        /** The {@code cdc-slot} health check fails when the slot holds back more WAL than this. */
        @NotNull
        @JsonProperty
        public io.dropwizard.util.DataSize maxRetainedWal = io.dropwizard.util.DataSize.gibibytes(1);
    }

    public static class WorkerSettings {
        /** Provider calls in flight at most (a semaphore around the call; each job runs on its own virtual thread). */
        @Min(1)
        @Max(10_000)
        @JsonProperty
        public int concurrency = 64;

        /**
         * The {@code high} priority lane's own provider calls in flight at most, beside {@code concurrency}: its own
         * stream, consumer, semaphores and provider connections, so a normal backlog holding every normal slot never
         * makes high work wait for one (a share of its own, not a weight).
         */
        @Min(1)
        @Max(10_000)
        @JsonProperty
        public int highConcurrency = 8;

        /**
         * Jobs held at once (read from the stream and not yet acknowledged) per provider-call slot. With 2, up to twice
         * {@code concurrency} jobs are in progress, so a job's claim and the recording of its outcome (database writes)
         * overlap other jobs' calls instead of keeping a call slot idle. 1: a job holds its slot from read to
         * acknowledgement.
         */
        @Min(1)
        @Max(16)
        @JsonProperty
        public int jobsPerCallSlot = 2;

        /** Entries a crashed consumer left unacknowledged are taken over after they sat this long. */
        @NotNull
        @JsonProperty
        public Duration reclaimIdle = Duration.seconds(60);
    }

    /** The internal checks a worker runs before calling a provider; a failure is REJECTED, never sent. */
    public static class CheckSettings {
        /** Recipients must match this (E.164 by default). */
        @NotNull
        @JsonProperty
        public String recipientPattern = "^\\+[1-9][0-9]{6,14}$";

        @Min(1)
        @JsonProperty
        public int maxBodyChars = 1600;

        /** Recipients refused outright (exact numbers or prefixes ending in '*'). */
        @NotNull
        @JsonProperty
        public List<String> blockedRecipients = new ArrayList<>();

        /** Tenants whose messages are refused (suspended accounts). */
        @NotNull
        @JsonProperty
        public List<String> blockedTenants = new ArrayList<>();
    }

    /**
     * Asking providers about messages without a final receipt (issue 32), on the gateways with {@code statusQuery: true};
     * other gateways' messages are UNKNOWN at the end of {@code reconcileWindow}, as before.
     */
    public static class ReconcileSettings {
        /** The first query of a message comes this long after the provider accepted it; the intervals then double. */
        @NotNull
        @JsonProperty
        public Duration queryAfter = Duration.minutes(10);

        /**
         * After the reconciliation window ends, queries go on every {@code retryEvery} for this long before a message the
         * provider could not be asked about is UNKNOWN (one asked and answered without a final is UNKNOWN at once).
         */
        @NotNull
        @JsonProperty
        public Duration grace = Duration.minutes(5);

        @NotNull
        @JsonProperty
        public Duration retryEvery = Duration.minutes(1);

        /** Status queries in flight at most in this process, over every gateway (each gateway also has its own rate). */
        @Min(1)
        @Max(1_000)
        @JsonProperty
        public int concurrency = 8;

        /** Messages waiting for their query at most; beyond it a message is asked at its next point. */
        @Min(1)
        @Max(1_000_000)
        @JsonProperty
        public int queueCapacity = 10_000;
    }

    /** The send workers' in-memory copy of the tenants' suppression lists (SuppressionCache). */
    public static class SuppressionSettings {
        /**
         * The staleness bound: a change committed at T is honoured by every claim-time check after T + maxStaleness
         * (usually within milliseconds, by LISTEN/NOTIFY). The cache also polls every third of it; a cache that has
         * not caught up for this long is not used, and each check asks the database instead. Default 10s.
         */
        @NotNull
        @MinDuration(value = 3, unit = java.util.concurrent.TimeUnit.MILLISECONDS)
        @JsonProperty
        public Duration maxStaleness = Duration.seconds(10);
    }
}
