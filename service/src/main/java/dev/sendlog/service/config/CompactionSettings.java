package dev.sendlog.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

/** Folding old event partitions into snapshots. */
public class CompactionSettings {
    /** Days of events kept as they were; older days are folded into one COMPACTED snapshot per message. */
    @Min(1)
    @JsonProperty
    public int retentionDays = 30;

    @NotNull
    @JsonProperty
    public Duration checkEvery = Duration.hours(1);

    /** How long compaction DDL may wait for a lock before it gives up and tries again at the next run. */
    @NotNull
    @JsonProperty
    public Duration lockTimeout = Duration.seconds(5);
}
