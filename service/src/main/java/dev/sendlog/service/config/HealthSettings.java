package dev.sendlog.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

/** Thresholds of the health checks on the admin port: each says what "the pipeline is stuck" means. */
public class HealthSettings {
    /** Redis memory use, as a share of maxmemory, above which the check warns (still healthy) and fails. */
    @Min(1)
    @Max(100)
    @JsonProperty
    public int redisMemoryWarnPercent = 70;

    @Min(1)
    @Max(100)
    @JsonProperty
    public int redisMemoryFailPercent = 90;

    /** The oldest work event not yet published (no live poller, or the poller cannot publish). */
    @NotNull
    @JsonProperty
    public Duration maxUnpublishedAge = Duration.seconds(30);

    /** A shard without a live owner for this long fails the pollers check (leases move within the lease time). */
    @NotNull
    @JsonProperty
    public Duration maxUnownedShard = Duration.seconds(30);

    /** The oldest job on a stream not yet acknowledged (workers stopped or stuck). */
    @NotNull
    @JsonProperty
    public Duration maxQueueAge = Duration.seconds(60);

    /** How long the most overdue publication check has waited: the timers fall behind (or no poller runs them). */
    @NotNull
    @JsonProperty
    public Duration maxTimerLag = Duration.seconds(60);

    /** The oldest open writing transaction in the cluster: it holds every tail reader back. */
    @NotNull
    @JsonProperty
    public Duration maxTransactionAge = Duration.seconds(60);

    /**
     * Messages going DEAD, UNKNOWN, or callbacks parked, per minute, above which the alarm is raised on GET /alarms (and
     * said in the failures check's message, which stays healthy: an alarm is not the node's health).
     */
    @Min(1)
    @JsonProperty
    public int maxDeadPerMinute = 10;

    @Min(1)
    @JsonProperty
    public int maxUnknownPerMinute = 100;

    @Min(1)
    @JsonProperty
    public int maxParkedPerMinute = 10;
}
