package dev.sendlog.service.tasks;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import dev.sendlog.compactor.Compactor;
import dev.sendlog.service.metrics.Metrics;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Compacts every day older than the retention; scheduled in the service and runnable as the compact command. */
public final class CompactionJob implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(CompactionJob.class);

    private final Compactor compactor;
    private final InstantSource clock;
    private final int retentionDays;
    private final Timer timer;

    public CompactionJob(Compactor compactor, InstantSource clock, int retentionDays, MetricRegistry metrics) {
        this.compactor = compactor;
        this.clock = clock;
        this.retentionDays = retentionDays;
        this.timer = Metrics.timer(metrics, "compaction.run");
    }

    public List<LocalDate> compact() throws java.sql.SQLException {
        LocalDate cutoff = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC).minusDays(retentionDays);
        try (Timer.Context ignored = timer.time()) {
            return compactor.compactBefore(cutoff);
        }
    }

    @Override
    public void run() {
        try {
            List<LocalDate> days = compact();
            if (!days.isEmpty()) {
                LOG.info("compacted days {}", days);
            }
        } catch (Exception e) {
            LOG.error("compaction failed; it resumes from where it stopped at the next run", e);
        }
    }
}
