package dev.sendlog.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

/** The accept path: how concurrent submissions are gathered into one commit. */
public class AcceptSettings {
    /** Gather concurrent submissions into one transaction. Off: one transaction per request (for comparison). */
    @JsonProperty
    public boolean groupCommit = true;

    /**
     * Answer the ordinary single-message POST in a servlet filter ahead of Jersey ({@code DirectSubmit}); anything
     * unusual still goes to the resource. Off: every request through Jersey (for comparison).
     */
    @JsonProperty
    public boolean directSubmit = true;

    /** Messages per transaction at most. */
    @Min(1)
    @Max(5000)
    @JsonProperty
    public int maxBatchMessages = 500;

    /** How long a writer waits for more submissions once it has one; 0 takes only what is already queued. */
    @Min(0)
    @Max(50)
    @JsonProperty
    public int maxWaitMs = 1;

    /** Writer threads, each with its own connection from the api pool. */
    @Min(1)
    @Max(64)
    @JsonProperty
    public int writers = 4;

    /** Submissions queued for a writer at most; past it the API answers 503 with Retry-After. */
    @Min(1)
    @JsonProperty
    public int queueCapacity = 20_000;

    /** How long a client's Idempotency-Key is remembered. */
    @NotNull
    @JsonProperty
    public Duration idempotencyTtl = Duration.hours(24);

    /** Expired idempotency keys removed per statement (small batches: no long locks, no bloat spikes). */
    @Min(1)
    @JsonProperty
    public int idempotencyPurgeBatch = 1000;
}
