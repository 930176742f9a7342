package dev.sendlog.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.Max;
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
     * The statistics target of those ANALYZEs (PostgreSQL's default is 100: a sample of 30,000 rows and 100 values per
     * column). sendlog's reads go by id, shard cursor, tenant, status and recipient through their indexes, and need row
     * counts and rough distributions, not fine histograms; at 100, analyzing a day partition took a quarter of the
     * PostgreSQL time of a scripts/bench run at C=16 (pg_stat_statements), about 12 times what it takes at 10.
     * Columns given a target of their own (ALTER TABLE ... SET STATISTICS) keep it.
     */
    @Min(1)
    @Max(10_000)
    @JsonProperty
    public int statisticsTarget = 10;

    /**
     * How often the tables with more than 50 rows plus 20% dead are vacuumed (autovacuum's rule), on a server where
     * autovacuum is off or for a table opted out of it; tables autovacuum looks after are left to it.
     */
    @NotNull
    @JsonProperty
    public Duration vacuumEvery = Duration.minutes(1);
}
