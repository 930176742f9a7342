package dev.sendlog.service;

import com.codahale.metrics.MetricRegistry;
import dev.sendlog.compactor.PartitionManager;
import dev.sendlog.service.config.HealthSettings;
import dev.sendlog.service.config.SendlogConfiguration;
import dev.sendlog.service.db.PoolRole;
import dev.sendlog.service.db.Pools;
import dev.sendlog.service.health.AlarmsServlet;
import dev.sendlog.service.health.DatabaseHealthCheck;
import dev.sendlog.service.health.FailureRateHealthCheck;
import dev.sendlog.service.health.FailureRates;
import dev.sendlog.service.health.PartitionsHealthCheck;
import dev.sendlog.service.health.PollersHealthCheck;
import dev.sendlog.service.health.TimerLagHealthCheck;
import dev.sendlog.service.health.TransactionAgeHealthCheck;
import dev.sendlog.service.health.WebhookHealthCheck;
import dev.sendlog.service.metrics.PrometheusServlet;
import dev.sendlog.service.webhooks.WebhookDeliveries;
import io.dropwizard.core.setup.Environment;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What every process reports on its admin port, whatever components it runs: the health checks ({@code /healthcheck}),
 * the failure alarms ({@code /alarms}) and the Prometheus metrics.
 */
final class HealthWiring {
    private HealthWiring() {}

    /** Registers the checks and the alarms' sampling; returns the alarms (the pipeline view shows them). */
    static FailureRates wire(Parts parts, PartitionManager partitionManager) {
        SendlogConfiguration config = parts.config();
        Environment env = parts.env();
        Pools pools = parts.pools();
        InstantSource clock = parts.clock();
        MetricRegistry metrics = env.metrics();
        env.admin().addServlet("prometheus", new PrometheusServlet(metrics)).addMapping("/metrics/prometheus");
        env.healthChecks()
                .register(
                        "database",
                        new DatabaseHealthCheck(
                                pools.pool(PoolRole.MAINTENANCE),
                                List.of(
                                        pools.pool(PoolRole.API),
                                        pools.pool(PoolRole.PIPELINE),
                                        pools.pool(PoolRole.CALLBACKS),
                                        pools.pool(PoolRole.MAINTENANCE),
                                        pools.pool(PoolRole.WEBHOOKS))));
        env.healthChecks()
                .register(
                        "partitions",
                        new PartitionsHealthCheck(partitionManager, clock, config.partitions.minDaysAhead));
        HealthSettings h = config.alarms;
        env.healthChecks()
                .register(
                        "pollers",
                        new PollersHealthCheck(
                                pools.dsl(PoolRole.MAINTENANCE),
                                Duration.ofMillis(h.maxUnownedShard.toMilliseconds()),
                                Duration.ofMillis(h.maxUnpublishedAge.toMilliseconds())));
        env.healthChecks()
                .register(
                        "timers",
                        new TimerLagHealthCheck(
                                pools.dsl(PoolRole.MAINTENANCE),
                                Duration.ofMillis(h.maxTimerLag.toMilliseconds()),
                                metrics));
        env.healthChecks()
                .register(
                        "transactions",
                        new TransactionAgeHealthCheck(
                                pools.dsl(PoolRole.MAINTENANCE),
                                Duration.ofMillis(h.maxTransactionAge.toMilliseconds()),
                                metrics));
        FailureRates failureRates =
                new FailureRates(metrics, clock, h.maxDeadPerMinute, h.maxUnknownPerMinute, h.maxParkedPerMinute);
        env.lifecycle()
                .scheduledExecutorService("alarms-%d")
                .threads(1)
                .build()
                .scheduleWithFixedDelay(failureRates::sample, 1, 1, TimeUnit.SECONDS);
        env.healthChecks().register("failures", new FailureRateHealthCheck(failureRates));
        env.healthChecks()
                .register(
                        "webhooks",
                        new WebhookHealthCheck(
                                new WebhookDeliveries(pools.dsl(PoolRole.MAINTENANCE)),
                                clock,
                                config.webhooks.maxOwedAge.toJavaDuration()));
        env.admin()
                .addServlet("alarms", new AlarmsServlet(failureRates, env.getObjectMapper()))
                .addMapping("/alarms");
        return failureRates;
    }
}
