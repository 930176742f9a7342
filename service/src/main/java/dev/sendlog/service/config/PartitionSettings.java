package dev.sendlog.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

/** Day partitions of messages and message_events. */
public class PartitionSettings {
    /** Days after today that must have partitions; created at start-up and by a scheduled job. */
    @Min(1)
    @JsonProperty
    public int daysAhead = 7;

    /** The health check fails while fewer future days than this exist. */
    @Min(1)
    @JsonProperty
    public int minDaysAhead = 2;

    @NotNull
    @JsonProperty
    public Duration checkEvery = Duration.minutes(10);

    /**
     * How often the tables that changed by more than 50 rows plus 10% since their last ANALYZE are analyzed again
     * (autovacuum's rule, for servers where it is off; where it is on, this usually finds nothing to do).
     */
    @NotNull
    @JsonProperty
    public Duration analyzeEvery = Duration.seconds(10);

    /**
     * How often the tables with more than 50 rows plus 20% dead are vacuumed (autovacuum's rule), on a server where
     * autovacuum is off or for a table opted out of it; tables autovacuum looks after are left to it.
     */
    @NotNull
    @JsonProperty
    public Duration vacuumEvery = Duration.minutes(1);
}
