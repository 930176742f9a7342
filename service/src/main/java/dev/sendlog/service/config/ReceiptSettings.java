package dev.sendlog.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

/** Callback intake and processing. */
public class ReceiptSettings {
    /**
     * A receipt that arrives before our PROVIDER_ACCEPTED is visible (the provider answered, our write is a moment
     * late) is held and matched again until this long after it arrived; only then is it parked as unmatched.
     */
    @NotNull
    @JsonProperty
    public Duration holdWindow = Duration.seconds(60);

    /** How often callbacks still without an outcome (held, or never queued because Redis was down) are queued again. */
    @NotNull
    @JsonProperty
    public Duration sweepEvery = Duration.seconds(2);

    /** Callback jobs in flight at most: the callback worker's own bound, separate from the send workers'. */
    @Min(1)
    @Max(10_000)
    @JsonProperty
    public int concurrency = 64;

    /**
     * Callbacks decided together, in a fixed number of round trips (rows, matches, messages, then one group commit per
     * round). Keep it below {@code concurrency} so that one batch's reads overlap another's commit; 1 decides each
     * callback alone.
     */
    @Min(1)
    @Max(1_000)
    @JsonProperty
    public int batchSize = 8;

    /**
     * Force send and callback work through one shared concurrency bound (the send workers' semaphore). Kept only to
     * measure what isolation buys; never use it in production.
     */
    @JsonProperty
    public boolean sharedWorkerBound = false;

    /**
     * Store the ordinary signed callback in a servlet filter ahead of Jersey ({@code DirectCallback}); anything unusual
     * still goes to the resource. Off: every callback through Jersey (for comparison).
     */
    @JsonProperty
    public boolean directIntake = true;

    /**
     * Callback requests being stored at once at most. A request past it waits up to {@code intakeWait} for a place;
     * only then intake answers 503 with Retry-After, and the provider sends it again later. At most this many wait;
     * one more is refused at once, so callbacks never hold more than twice this many request threads.
     */
    @Min(1)
    @JsonProperty
    public int maxConcurrentIntake = 32;

    /** How long a callback waits for a place in the intake bound before it is refused with 503. 0: refused at once. */
    @NotNull
    @JsonProperty
    public Duration intakeWait = Duration.seconds(2);

    /** Group commit of inbox writes. */
    @Min(1)
    @Max(64)
    @JsonProperty
    public int inboxWriters = 2;

    /**
     * How long a callback request waits for its inbox commit. Past it the provider gets 503 with Retry-After and sends
     * the callback again (the commit may still land; the same body again is answered with the row that holds it).
     */
    @NotNull
    @JsonProperty
    public Duration storeTimeout = Duration.seconds(30);
}
