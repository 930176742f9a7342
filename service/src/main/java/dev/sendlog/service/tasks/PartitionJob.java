package dev.sendlog.service.tasks;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import dev.sendlog.compactor.DayPartition;
import dev.sendlog.compactor.PartitionManager;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Keeps day partitions created ahead; run at start-up and on a schedule. */
public final class PartitionJob implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionJob.class);

    private final PartitionManager partitions;
    private final InstantSource clock;
    private final int daysAhead;
    private final Counter failures;

    public PartitionJob(PartitionManager partitions, InstantSource clock, int daysAhead, MetricRegistry metrics) {
        this.partitions = partitions;
        this.clock = clock;
        this.daysAhead = daysAhead;
        this.failures = metrics.counter("partitions.ensure.failures");
    }

    /** Creates what is missing from yesterday (a message accepted just before midnight) through today + daysAhead. */
    public List<DayPartition> ensure() throws java.sql.SQLException {
        LocalDate today = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC);
        return partitions.ensure(today.minusDays(1), daysAhead + 1);
    }

    @Override
    public void run() {
        try {
            ensure();
        } catch (Exception e) {
            failures.inc();
            LOG.error("creating partitions ahead failed; the partitions health check shows how many days are left", e);
        }
    }
}
