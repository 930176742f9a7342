package dev.sendlog.service;

import com.codahale.metrics.MetricRegistry;
import dev.sendlog.compactor.Compactor;
import dev.sendlog.events.EventCodec;
import dev.sendlog.service.config.SendlogConfiguration;
import dev.sendlog.service.db.PoolRole;
import dev.sendlog.service.db.Pools;
import dev.sendlog.service.log.EventStore;
import dev.sendlog.service.log.MessageReader;
import dev.sendlog.service.projection.ProjectionRebuild;
import dev.sendlog.service.tasks.CompactionJob;
import dev.sendlog.service.tasks.DeadRowVacuum;
import dev.sendlog.service.tasks.IdempotencyKeyPurge;
import dev.sendlog.service.tasks.PartitionJob;
import dev.sendlog.service.tasks.RunNowTask;
import dev.sendlog.service.tasks.StatisticsRefresh;
import io.dropwizard.core.setup.Environment;
import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The maintenance component: day partitions ahead, idempotency keys purged, statistics, vacuum of the mutable tables,
 * compaction, and their run-now tasks on the admin port.
 */
final class MaintenanceWiring {
    /** Threads of the maintenance jobs: partitions and purge, statistics and vacuum, compaction. */
    private static final int THREADS = 3;
    /** How often expired idempotency keys are purged (each run bounded by {@code accept.idempotencyPurgeBatch}). */
    private static final Duration PURGE_EVERY = Duration.ofMinutes(1);
    /** How long DDL and ANALYZE wait for a lock before they give up until their next run (they never queue behind writes). */
    static final Duration DDL_LOCK_TIMEOUT = Duration.ofSeconds(2);

    private MaintenanceWiring() {}

    static void wire(Parts parts, PartitionJob partitionJob) {
        SendlogConfiguration config = parts.config();
        Environment env = parts.env();
        Pools pools = parts.pools();
        EventStore events = parts.events();
        EventCodec codec = parts.codec();
        InstantSource clock = parts.clock();
        MetricRegistry metrics = env.metrics();

        ScheduledExecutorService maintenance = env.lifecycle()
                .scheduledExecutorService("maintenance-%d")
                .threads(THREADS)
                .build();
        long partitionEveryMs = config.partitions.checkEvery.toMilliseconds();
        maintenance.scheduleWithFixedDelay(partitionJob, partitionEveryMs, partitionEveryMs, TimeUnit.MILLISECONDS);
        IdempotencyKeyPurge purge = new IdempotencyKeyPurge(
                pools.dsl(PoolRole.MAINTENANCE), clock, config.accept.idempotencyPurgeBatch, metrics);
        maintenance.scheduleWithFixedDelay(purge, PURGE_EVERY.toSeconds(), PURGE_EVERY.toSeconds(), TimeUnit.SECONDS);
        env.admin().addTask(new RunNowTask("purge-idempotency-keys", purge::purge));
        env.admin().addTask(new RunNowTask("ensure-partitions", partitionJob::ensure));
        StatisticsRefresh statistics = new StatisticsRefresh(
                pools.dataSource(PoolRole.MAINTENANCE), DDL_LOCK_TIMEOUT, config.partitions.statisticsTarget, metrics);
        long analyzeEveryMs = config.partitions.analyzeEvery.toMilliseconds();
        maintenance.scheduleWithFixedDelay(statistics, analyzeEveryMs, analyzeEveryMs, TimeUnit.MILLISECONDS);
        env.admin().addTask(new RunNowTask("analyze", statistics::refresh));
        DeadRowVacuum vacuum = new DeadRowVacuum(pools.dataSource(PoolRole.MAINTENANCE), metrics);
        long vacuumEveryMs = config.partitions.vacuumEvery.toMilliseconds();
        maintenance.scheduleWithFixedDelay(vacuum, vacuumEveryMs, vacuumEveryMs, TimeUnit.MILLISECONDS);
        env.admin().addTask(new RunNowTask("vacuum", vacuum::vacuum));
        CompactionJob compaction = new CompactionJob(
                new Compactor(
                        pools.dataSource(PoolRole.MAINTENANCE),
                        codec,
                        Duration.ofMillis(config.compaction.lockTimeout.toMilliseconds()),
                        step -> {}),
                clock,
                config.compaction.retentionDays,
                metrics);
        long compactEveryMs = config.compaction.checkEvery.toMilliseconds();
        maintenance.scheduleWithFixedDelay(compaction, compactEveryMs, compactEveryMs, TimeUnit.MILLISECONDS);
        env.admin().addTask(new RunNowTask("compact", compaction::compact));
        MessageReader maintenanceReader = new MessageReader(pools.dsl(PoolRole.MAINTENANCE), events);
        env.admin()
                .addTask(new RunNowTask(
                        "rebuild-projection",
                        () -> ProjectionRebuild.rebuild(pools.dsl(PoolRole.MAINTENANCE), maintenanceReader)));
    }
}
