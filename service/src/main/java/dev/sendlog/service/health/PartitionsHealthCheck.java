package dev.sendlog.service.health;

import com.codahale.metrics.health.HealthCheck;
import dev.sendlog.compactor.PartitionManager;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.ZoneOffset;

/** Enough future day partitions exist: without one, the API answers 503 at midnight. */
public final class PartitionsHealthCheck extends HealthCheck {
    private final PartitionManager partitions;
    private final InstantSource clock;
    private final int minDaysAhead;

    public PartitionsHealthCheck(PartitionManager partitions, InstantSource clock, int minDaysAhead) {
        this.partitions = partitions;
        this.clock = clock;
        this.minDaysAhead = minDaysAhead;
    }

    @Override
    protected Result check() throws Exception {
        LocalDate today = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC);
        int covered = partitions.daysCovered(today);
        // covered counts today; minDaysAhead counts days after it.
        if (covered < minDaysAhead + 1) {
            return Result.unhealthy("partitions exist for " + covered + " days from " + today + "; need today and "
                    + minDaysAhead + " more");
        }
        return Result.healthy(covered + " days of partitions from " + today);
    }
}
