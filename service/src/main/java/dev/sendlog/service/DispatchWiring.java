package dev.sendlog.service;

import com.codahale.metrics.MetricRegistry;
import dev.sendlog.events.Lanes;
import dev.sendlog.projections.Limits;
import dev.sendlog.projections.QuerySchedule;
import dev.sendlog.service.accept.Routes;
import dev.sendlog.service.accept.SuppressionStore;
import dev.sendlog.service.config.Components;
import dev.sendlog.service.config.PipelineSettings;
import dev.sendlog.service.config.SendlogConfiguration;
import dev.sendlog.service.config.TenantSettings;
import dev.sendlog.service.db.LocalInfrastructure;
import dev.sendlog.service.db.PoolRole;
import dev.sendlog.service.db.Pools;
import dev.sendlog.service.health.FeedSlotHealthCheck;
import dev.sendlog.service.log.EventAppender;
import dev.sendlog.service.log.EventStore;
import dev.sendlog.service.log.MessageReader;
import dev.sendlog.service.log.Publications;
import dev.sendlog.service.publish.CdcFeed;
import dev.sendlog.service.publish.FeedSlot;
import dev.sendlog.service.publish.HighWorkSignal;
import dev.sendlog.service.publish.LogTail;
import dev.sendlog.service.publish.Poller;
import dev.sendlog.service.publish.ShardLeases;
import dev.sendlog.service.publish.ShardOwner;
import dev.sendlog.service.publish.WorkPublisher;
import dev.sendlog.service.queue.JobStream;
import dev.sendlog.service.queue.RedisConnections;
import dev.sendlog.service.queue.StreamConsumer;
import dev.sendlog.service.queue.StreamKeys;
import dev.sendlog.service.receipts.Inbox;
import dev.sendlog.service.receipts.Vocabulary;
import dev.sendlog.service.reconcile.Reconciler;
import dev.sendlog.service.send.Backoff;
import dev.sendlog.service.send.Checks;
import dev.sendlog.service.send.Failover;
import dev.sendlog.service.send.SendStreams;
import dev.sendlog.service.send.SendWorker;
import dev.sendlog.service.send.SuppressionCache;
import dev.sendlog.service.send.provider.FairShares;
import dev.sendlog.service.send.provider.GatewayRate;
import dev.sendlog.service.send.provider.HttpProvider;
import dev.sendlog.service.send.provider.Provider;
import dev.sendlog.service.send.provider.SendRate;
import dev.sendlog.service.send.provider.smpp.SmppGateway;
import dev.sendlog.service.timers.Timers;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.lifecycle.Managed;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Semaphore;

/** Dispatch: the pollers or the change-data-capture feed, the send workers per lane, the timers and the reconciler. */
final class DispatchWiring extends ComponentWiring {
    /** Query points this close together are taken at one publication check (a batch's messages are accepted ms apart). */
    private static final Duration QUERY_COALESCE = Duration.ofSeconds(5);

    DispatchWiring(Parts parts) {
        super(parts);
    }

    void wire(
            SendlogConfiguration config,
            Environment env,
            Pools pools,
            EventStore events,
            LocalInfrastructure local,
            String instance,
            Semaphore sendPermits,
            Inbox inbox) {
        MetricRegistry metrics = env.metrics();
        PipelineSettings p = config.pipeline;
        // SMPP has no idempotency key: a claim on such a gateway that expires may have reached the SMSC, and the
        // timers make the message UNKNOWN instead of submitting it again (unless the gateway says
        // resubmitAfterTimeout).
        Set<String> atMostOnce = new java.util.HashSet<>();
        config.gateways.forEach((name, g) -> {
            if (g.isSmpp() && !g.smpp.resubmitAfterTimeout) {
                atMostOnce.add(name);
            }
        });
        Limits limits = new Limits(
                p.maxAttempts,
                p.maxPublishes,
                Duration.ofMillis(p.confirmTimeout.toMilliseconds()),
                Duration.ofMillis(p.claimTimeout.toMilliseconds()),
                atMostOnce);
        // One stream per lane (normal, high, each tenant lane), each with its own bound, health checks and workers.
        Map<String, JobStream> laneStreams = new HashMap<>();
        for (Lanes.Lane lane : lanes.all()) {
            laneStreams.put(
                    lane.name(),
                    jobStore(
                            config,
                            env,
                            local.sendRedisUri(),
                            jobType(lane),
                            StreamKeys.sendLane(config.redis.keyPrefix, lane),
                            StreamKeys.SEND_GROUP,
                            instance));
        }
        SendStreams streams = new SendStreams(lanes, laneStreams);
        EventAppender appender =
                new EventAppender(pools.dsl(PoolRole.PIPELINE), events, p.appendWriters, metrics, "append", tallies);
        env.lifecycle().manage(appender);
        // The high lane's claims and results have a group-commit writer of their own: behind the normal lane's queue at
        // full rate, a high message's claim would wait for the commits of hundreds of normal ones ahead of it.
        EventAppender highAppender =
                new EventAppender(pools.dsl(PoolRole.PIPELINE), events, 1, metrics, "append-high", tallies);
        env.lifecycle().manage(highAppender);

        if (config.components.contains(Components.POLLER)) {
            ShardLeases leases = new ShardLeases(
                    pools.dsl(PoolRole.PIPELINE),
                    "poller-" + instance,
                    lanes.total(),
                    Duration.ofMillis(p.leaseTtl.toMilliseconds()),
                    metrics);
            LogTail tail = new LogTail(pools.dataSource(PoolRole.PIPELINE));
            Duration reconcileWindow = Duration.ofMillis(p.reconcileWindow.toMilliseconds());
            // With the change-data-capture feed the slot publishes the normal lane and the high lane is polled (see
            // ShardOwner); with the polling feed both are polled. Each polled lane has a poller of its own on its own
            // thread: a round of the normal lane's backlog (a full page published, its publication written) never holds
            // a high message back (measured with scripts/bench-priority: one poller for both lanes put a high message's
            // accept->published p99 at 184 ms behind 100,000 normal ones, against 30 ms with nothing queued).
            List<Lanes.Lane> polled = lanes.all().stream()
                    .filter(l -> p.feed != PipelineSettings.Feed.CDC || !l.equals(lanes.normal()))
                    .toList();
            // The high poller waits for the accepts' notifications instead of reading every idlePollMs.
            HighWorkSignal highWork =
                    new HighWorkSignal(local.database().unpooled(), p.highIdlePollMs, p.idlePollMs, metrics);
            env.lifecycle().manage(highWork);
            List<Poller> pollers = new ArrayList<>();
            for (Lanes.Lane lane : polled) {
                pollers.add(new Poller(
                        leases,
                        tail,
                        pools.dsl(PoolRole.PIPELINE),
                        events.actors(),
                        streams,
                        Set.of(lane),
                        p,
                        clock,
                        "poller-" + instance,
                        faults,
                        metrics,
                        lane.equals(lanes.high()) ? highWork : null,
                        tallies));
            }
            CdcFeed cdcFeed = null;
            if (p.feed == PipelineSettings.Feed.CDC) {
                FeedSlot slot = new FeedSlot(pools.dsl(PoolRole.PIPELINE), p.cdc.slot, p.cdc.publication);
                slot.prepare();
                cdcFeed = new CdcFeed(
                        local.database(),
                        pools.dsl(PoolRole.PIPELINE),
                        slot,
                        new WorkPublisher(
                                pools.dsl(PoolRole.PIPELINE),
                                events.actors(),
                                streams,
                                Set.of(lanes.normal()),
                                p,
                                clock,
                                "poller-" + instance,
                                faults,
                                true,
                                metrics,
                                tallies),
                        p.cdc,
                        "poller-" + instance,
                        Duration.ofMillis(p.leaseTtl.toMilliseconds()),
                        metrics);
                FeedSlotHealthCheck slotHealth = new FeedSlotHealthCheck(
                        new FeedSlot(pools.dsl(PoolRole.MAINTENANCE), p.cdc.slot, p.cdc.publication),
                        p.cdc.maxRetainedWal.toBytes(),
                        metrics);
                env.healthChecks().register("cdc-slot", slotHealth);
            }
            Reconciler reconciler = reconciler(config, env, pools, events, appender, instance, local);
            PipelineSettings.ReconcileSettings rs = p.reconcile;
            QuerySchedule schedule = reconciler == null
                    ? null
                    : new QuerySchedule(
                            rs.queryAfter.toJavaDuration(),
                            reconcileWindow,
                            rs.grace.toJavaDuration(),
                            rs.retryEvery.toJavaDuration(),
                            QUERY_COALESCE);
            Timers timers = new Timers(
                    new Publications(pools.dsl(PoolRole.MAINTENANCE)),
                    new MessageReader(pools.dsl(PoolRole.MAINTENANCE), events),
                    appender,
                    events.actors(),
                    limits,
                    reconcileWindow,
                    clock,
                    metrics,
                    reconciler,
                    schedule);
            ShardOwner owner = new ShardOwner(
                    leases,
                    pollers,
                    cdcFeed,
                    timers::fireSome,
                    Duration.ofMillis(p.leaseTtl.toMilliseconds()),
                    p.maxBatchesPerRound,
                    p.idlePollMs,
                    p.timerIntervalMs,
                    metrics);
            env.lifecycle().manage(owner);
            shutdown.shardOwner(owner);
            pausables.put(
                    "poller",
                    new Pausable(
                            () -> {
                                try {
                                    owner.pause();
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                            },
                            owner::resume));
        }
        if (config.components.contains(Components.SEND_WORKER)) {
            // Started before the consumers: its first load is usually done before the first claim (until then, checks
            // ask the database). One connection of its own for LISTEN, outside the pools (PoolBudget counts it).
            SuppressionCache suppressions = new SuppressionCache(
                    new SuppressionStore(pools.dsl(PoolRole.PIPELINE), clock),
                    local.database().unpooled(),
                    p.suppression.maxStaleness.toJavaDuration(),
                    metrics);
            env.lifecycle().manage(suppressions);
            Checks checks = new Checks(p.checks, suppressions::suppressed);
            Backoff backoff = new Backoff(
                    Duration.ofMillis(p.retryBase.toMilliseconds()), Duration.ofMillis(p.retryCap.toMilliseconds()));
            Map<String, GatewayRate> rates = gatewayRates(config, env, local);
            // One gateway health per process, for both lanes: a gateway marked down by normal work is down for high
            // too.
            Failover failover = new Failover(
                    new Routes(config.routes, config.gateways.keySet(), config.defaultGateway),
                    config.gateways,
                    metrics);
            env.healthChecks()
                    .register(
                            "gateways",
                            new dev.sendlog.service.health.GatewaysHealthCheck(metrics, config.gateways.keySet()));
            Map<String, SmppGateway> smppGateways = smppGateways(config, env, inbox);
            List<Pausable> lanePausables = new ArrayList<>();
            // Fair shares (issue 29): with tenant lanes, each gateway's rate is taken through one turnstile per process
            // that serves the lanes by weight (the high lane first); without them, straight from the shared bucket.
            int weights = 1
                    + lanes.all().stream()
                            .filter(Lanes.Lane::isTenant)
                            .mapToInt(l -> weight(config, l))
                            .sum();
            Map<String, FairShares> fair = new HashMap<>();
            if (lanes.all().stream().anyMatch(Lanes.Lane::isTenant)) {
                rates.forEach((gateway, rate) -> fair.put(gateway, new FairShares(rate, metrics)));
            }
            for (Lanes.Lane lane : lanes.all()) {
                // Each lane has its own consumer, permits, provider-call semaphore and provider connections (and the
                // high lane its own appender): one lane's backlog holding all of its own never makes another wait.
                boolean high = lane.equals(lanes.high());
                boolean normal = lane.equals(lanes.normal());
                int concurrency = high
                        ? p.sendWorker.highConcurrency
                        : normal ? p.sendWorker.concurrency : laneConcurrency(config, lane, weights);
                Semaphore permits = normal ? sendPermits : new Semaphore(concurrency * p.sendWorker.jobsPerCallSlot);
                Map<String, Provider> providers = new HashMap<>(smppGateways);
                config.gateways.forEach((name, gateway) -> {
                    if (gateway.isSmpp()) {
                        return; // one set of binds per process, shared by the lanes
                    }
                    HttpProvider provider = new HttpProvider(name, gateway, concurrency);
                    env.lifecycle().manage(managed(() -> closeQuietly(provider)));
                    providers.put(name, provider);
                });
                Map<String, SendRate> laneRates = new HashMap<>(rates);
                fair.forEach((gateway, shares) ->
                        laneRates.put(gateway, shares.lane(lane.name(), high ? 1 : weight(config, lane), high)));
                StreamConsumer consumer = new StreamConsumer(
                        jobType(lane),
                        streams.of(lane),
                        permits,
                        Duration.ofMillis(p.sendWorker.reclaimIdle.toMilliseconds()),
                        metrics);
                SendWorker worker = SendWorker.attach(
                        consumer,
                        new MessageReader(pools.dsl(PoolRole.PIPELINE), events),
                        high ? highAppender : normal ? appender : laneAppender(env, pools, events, lane),
                        providers,
                        laneRates,
                        failover,
                        checks,
                        backoff,
                        limits,
                        config.publicBaseUrl,
                        clock,
                        "worker-" + instance,
                        faults,
                        concurrency,
                        metrics);
                env.lifecycle().manage(consumer);
                shutdown.consumer(consumer, worker);
                lanePausables.add(new Pausable(consumer::pauseReading, consumer::resume));
            }
            pausables.put(
                    "send-worker",
                    new Pausable(
                            () -> lanePausables.forEach(l -> l.pause().run()),
                            () -> lanePausables.forEach(l -> l.resume().run())));
        }
    }
    /**
     * A tenant lane's claims and results have a group-commit writer of their own, as the high lane's have: behind the
     * normal lane's writers at a flood's rate, its claims would wait for the commits of the flood's jobs ahead of them.
     */
    private EventAppender laneAppender(Environment env, Pools pools, EventStore events, Lanes.Lane lane) {
        EventAppender appender = new EventAppender(
                pools.dsl(PoolRole.PIPELINE), events, 1, env.metrics(), "append-" + lane.name(), tallies);
        env.lifecycle().manage(appender);
        return appender;
    }
    /** The job type of a lane's send stream: {@code send}, {@code send-high}, {@code send-tenant-<tenant>}. */
    private String jobType(Lanes.Lane lane) {
        if (lane.equals(lanes.normal())) {
            return "send";
        }
        return lane.equals(lanes.high()) ? "send-high" : "send-" + lane.name();
    }
    /** A lane's weight: its tenant's {@code weight}; 1 for the normal lane and for a lane whose tenant has none now. */
    private static int weight(SendlogConfiguration config, Lanes.Lane lane) {
        if (!lane.isTenant()) {
            return 1;
        }
        TenantSettings t = config.tenants.get(lane.tenant());
        return t == null || t.weight == null ? 1 : t.weight;
    }
    /** A tenant lane's provider calls in flight: its {@code concurrency}, else its weight's share of the send bound. */
    private static int laneConcurrency(SendlogConfiguration config, Lanes.Lane lane, int weights) {
        TenantSettings t = config.tenants.get(lane.tenant());
        if (t != null && t.concurrency != null) {
            return t.concurrency;
        }
        return Math.max(
                1, (int) Math.round((double) config.pipeline.sendWorker.concurrency * weight(config, lane) / weights));
    }
    /**
     * The shared rates of the gateways with {@code maxPerSecond} (issue 29), one per gateway for both lanes: a Redis
     * client of their own on the send job type's server (its short command timeout makes a lost server a fallback to
     * each process's own lower rate, not a stall).
     */
    private Map<String, GatewayRate> gatewayRates(
            SendlogConfiguration config, Environment env, LocalInfrastructure local) {
        Map<String, GatewayRate> rates = new HashMap<>();
        if (config.gateways.values().stream().noneMatch(g -> g.maxPerSecond > 0)) {
            return rates;
        }
        RedisConnections redis =
                new RedisConnections(local.sendRedisUri(), SHARED_STATE_REDIS_TIMEOUT, config.redis.cluster);
        shutdown.closeLast(redis::close);
        var store = redis.bucketStore();
        config.gateways.forEach((name, g) -> {
            if (g.maxPerSecond > 0) {
                String flagKey = config.redis.keyPrefix + "{rate}:" + name + ":slow";
                rates.put(
                        name,
                        new GatewayRate(
                                name,
                                g.maxPerSecond,
                                g.throttledShare,
                                Duration.ofMillis(g.throttleFor.toMilliseconds()),
                                g.fallbackShare,
                                store,
                                redis.connect(flagKey),
                                config.redis.keyPrefix,
                                env.metrics()));
            }
        });
        return rates;
    }
    /**
     * The reconciler (issue 32) of the gateways with {@code statusQuery: true}, or null when there are none: its own
     * provider connections (as many as its concurrency), threads and reads, nothing of the send workers'; its rate per
     * gateway is a bucket of its own that every process's reconciler shares in Redis (on the send job type's server,
     * with a client of its own whose short command timeout makes a lost server each process's lower fallback rate).
     * It runs where the timers run, which hand it the messages due for a query.
     */
    private Reconciler reconciler(
            SendlogConfiguration config,
            Environment env,
            Pools pools,
            EventStore events,
            EventAppender appender,
            String instance,
            LocalInfrastructure local) {
        PipelineSettings.ReconcileSettings rs = config.pipeline.reconcile;
        if (config.gateways.values().stream().noneMatch(g -> g.statusQuery)) {
            return null;
        }
        RedisConnections redis =
                new RedisConnections(local.sendRedisUri(), SHARED_STATE_REDIS_TIMEOUT, config.redis.cluster);
        shutdown.closeLast(redis::close);
        var store = redis.bucketStore();
        Map<String, Reconciler.Gateway> asked = new HashMap<>();
        config.gateways.forEach((name, g) -> {
            if (g.statusQuery) {
                HttpProvider provider = new HttpProvider(name, g, rs.concurrency);
                env.lifecycle().manage(managed(() -> closeQuietly(provider)));
                String prefix = config.redis.keyPrefix;
                GatewayRate rate = GatewayRate.forQueries(
                        name,
                        g.queriesPerSecond,
                        g.fallbackShare,
                        store,
                        redis.connect(GatewayRate.slowKey(GatewayRate.queriesKey(prefix, name))),
                        prefix,
                        env.metrics());
                asked.put(name, new Reconciler.Gateway(provider, Vocabulary.named(g.vocabulary, g.statusMap), rate));
            }
        });
        Reconciler reconciler = new Reconciler(
                asked,
                new MessageReader(pools.dsl(PoolRole.MAINTENANCE), events),
                appender,
                Duration.ofMillis(config.pipeline.reconcileWindow.toMilliseconds()),
                rs.concurrency,
                rs.queueCapacity,
                clock,
                "reconciler-" + instance,
                env.metrics());
        env.lifecycle().manage(reconciler);
        env.healthChecks()
                .register(
                        "reconcile",
                        new dev.sendlog.service.health.ReconcileHealthCheck(env.metrics(), asked.keySet()));
        return reconciler;
    }
    /**
     * This process's SMPP gateways (docs/api.md, "SMPP gateways"): their binds come up in the background once the
     * application starts and are closed when it stops; receipts on them go to {@code inbox}. Each has a health check
     * {@code smpp-<gateway>} that says how many binds are up (never failing: an SMSC down is the provider's trouble).
     */
    private Map<String, SmppGateway> smppGateways(SendlogConfiguration config, Environment env, Inbox inbox) {
        Map<String, SmppGateway> gateways = new HashMap<>();
        config.gateways.forEach((name, g) -> {
            if (!g.isSmpp()) {
                return;
            }
            SmppGateway gateway = new SmppGateway(name, g, body -> inbox.store(name, body), env.metrics());
            env.lifecycle().manage(new Managed() {
                @Override
                public void start() {
                    gateway.start();
                }

                @Override
                public void stop() {
                    gateway.close();
                }
            });
            env.healthChecks().register("smpp-" + name, new dev.sendlog.service.health.SmppHealthCheck(gateway));
            gateways.put(name, gateway);
        });
        return gateways;
    }
}
