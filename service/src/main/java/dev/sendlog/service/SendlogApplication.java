package dev.sendlog.service;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.sendlog.compactor.PartitionManager;
import dev.sendlog.events.EventCodec;
import dev.sendlog.events.Lanes;
import dev.sendlog.events.RowCodec;
import dev.sendlog.log.Actors;
import dev.sendlog.log.Histories;
import dev.sendlog.projections.Limits;
import dev.sendlog.projections.QuerySchedule;
import dev.sendlog.schema.Migrations;
import dev.sendlog.service.auth.AdminPortGuard;
import dev.sendlog.service.auth.ApiKeyAuthenticator;
import dev.sendlog.service.auth.ApiKeyStore;
import dev.sendlog.service.auth.Caller;
import dev.sendlog.service.auth.Role;
import dev.sendlog.service.cli.ChaosCommand;
import dev.sendlog.service.cli.ComponentCommand;
import dev.sendlog.service.cli.DbCommand;
import dev.sendlog.service.cli.DropFeedSlotCommand;
import dev.sendlog.service.cli.LoadTestCommand;
import dev.sendlog.service.cli.MaintenanceCommand;
import dev.sendlog.service.cli.SimulatorCommand;
import dev.sendlog.service.cli.StatusCommand;
import dev.sendlog.service.config.AuthSettings;
import dev.sendlog.service.config.Components;
import dev.sendlog.service.config.GatewaySettings;
import dev.sendlog.service.config.PipelineSettings;
import dev.sendlog.service.config.ReceiptSettings;
import dev.sendlog.service.config.SendlogConfiguration;
import dev.sendlog.service.config.TenantSettings;
import dev.sendlog.service.core.Faults;
import dev.sendlog.service.core.MessageReader;
import dev.sendlog.service.core.Routes;
import dev.sendlog.service.core.SuppressionStore;
import dev.sendlog.service.db.DatabaseTarget;
import dev.sendlog.service.db.EventStore;
import dev.sendlog.service.db.LaneLayout;
import dev.sendlog.service.db.LocalInfrastructure;
import dev.sendlog.service.db.PoolBudget;
import dev.sendlog.service.db.PoolRole;
import dev.sendlog.service.db.Pools;
import dev.sendlog.service.dispatch.Backoff;
import dev.sendlog.service.dispatch.CdcFeed;
import dev.sendlog.service.dispatch.Checks;
import dev.sendlog.service.dispatch.EventAppender;
import dev.sendlog.service.dispatch.Failover;
import dev.sendlog.service.dispatch.FeedSlot;
import dev.sendlog.service.dispatch.HighWorkSignal;
import dev.sendlog.service.dispatch.LogTail;
import dev.sendlog.service.dispatch.Poller;
import dev.sendlog.service.dispatch.Publications;
import dev.sendlog.service.dispatch.SendStreams;
import dev.sendlog.service.dispatch.SendWorker;
import dev.sendlog.service.dispatch.ShardLeases;
import dev.sendlog.service.dispatch.ShardOwner;
import dev.sendlog.service.dispatch.SuppressionCache;
import dev.sendlog.service.dispatch.Timers;
import dev.sendlog.service.dispatch.WorkPublisher;
import dev.sendlog.service.health.FailureRates;
import dev.sendlog.service.health.FeedSlotHealthCheck;
import dev.sendlog.service.health.QueueHealthCheck;
import dev.sendlog.service.health.RedisHealthCheck;
import dev.sendlog.service.lifecycle.ShutdownSequence;
import dev.sendlog.service.lifecycle.Sigterm;
import dev.sendlog.service.metrics.Tallies;
import dev.sendlog.service.provider.FairShares;
import dev.sendlog.service.provider.GatewayRate;
import dev.sendlog.service.provider.HttpProvider;
import dev.sendlog.service.provider.Provider;
import dev.sendlog.service.provider.SendRate;
import dev.sendlog.service.provider.smpp.SmppGateway;
import dev.sendlog.service.queue.JobStream;
import dev.sendlog.service.queue.RedisConnections;
import dev.sendlog.service.queue.StreamConsumer;
import dev.sendlog.service.queue.StreamKeys;
import dev.sendlog.service.receipts.CallbackRecorder;
import dev.sendlog.service.receipts.CallbackWorker;
import dev.sendlog.service.receipts.Inbox;
import dev.sendlog.service.receipts.InboxSweeper;
import dev.sendlog.service.receipts.IntakeBound;
import dev.sendlog.service.receipts.ReceiptMatcher;
import dev.sendlog.service.receipts.Vocabulary;
import dev.sendlog.service.reconcile.Reconciler;
import dev.sendlog.service.resources.CallbackResource;
import dev.sendlog.service.resources.DirectCallback;
import dev.sendlog.service.tasks.ComponentTask;
import dev.sendlog.service.tasks.PartitionJob;
import dev.sendlog.service.tasks.RunNowTask;
import dev.sendlog.service.tasks.TaskArguments;
import dev.sendlog.service.webhooks.SecretBox;
import dev.sendlog.service.webhooks.WebhookDeliveries;
import dev.sendlog.service.webhooks.WebhookDispatcher;
import dev.sendlog.service.webhooks.WebhookPoster;
import dev.sendlog.service.webhooks.WebhookRetries;
import dev.sendlog.service.webhooks.WebhookStore;
import dev.sendlog.service.webhooks.WebhookTargets;
import dev.sendlog.service.webhooks.WebhookWorker;
import dev.sendlog.simulator.ProviderSimulator;
import io.dropwizard.assets.AssetsBundle;
import io.dropwizard.auth.CachingAuthenticator;
import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.core.Application;
import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.jetty.HttpConnectorFactory;
import io.dropwizard.lifecycle.Managed;
import jakarta.servlet.DispatcherType;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The one place where sendlog is wired together. */
public class SendlogApplication extends Application<SendlogConfiguration> {
    private static final Logger LOG = LoggerFactory.getLogger(SendlogApplication.class);
    /** Query points this close together are taken at one publication check (a batch's messages are accepted ms apart). */
    private static final Duration QUERY_COALESCE = Duration.ofSeconds(5);
    /** API.md: a body over 64 KiB answers 413. */
    public static final long MAX_BODY_BYTES = 64 * 1024;

    private final InstantSource clock;
    private final Faults faults;
    /** Components an operator may pause and resume (admin tasks pause / resume ?component=...), to drain a node. */
    private final Map<String, Pausable> pausables = new java.util.concurrent.ConcurrentHashMap<>();
    /** Whether this is the process's own application (main), so it may take over SIGTERM; never in a test's JVM. */
    private final boolean ownProcess;

    private ShutdownSequence shutdown;
    /** The lanes' shard layout, as the database keeps it (LaneLayout), loaded at start. */
    private Lanes lanes;
    /** This process's per-minute counts and stage timings, shared through Redis (the console's pipeline view). */
    private Tallies tallies = Tallies.DISABLED;
    /** The failure alarms of this process (GET /alarms, and the console's pipeline view). */
    private FailureRates failureRates;
    /** The Redis clients of the pipeline view (stats and stream depths), closed at shutdown. */
    private RedisConnections statsRedis;

    private String callbackRedisUri;

    private record Pausable(Runnable pause, Runnable resume) {}

    public SendlogApplication() {
        this(InstantSource.system(), Faults.NONE, false);
    }

    /** Tests pass a clock they control and faults they arm. */
    public SendlogApplication(InstantSource clock, Faults faults) {
        this(clock, faults, false);
    }

    private SendlogApplication(InstantSource clock, Faults faults, boolean ownProcess) {
        this.clock = clock;
        this.faults = faults;
        this.ownProcess = ownProcess;
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("org.jooq.no-logo", "true");
        System.setProperty("org.jooq.no-tips", "true");
        new SendlogApplication(InstantSource.system(), Faults.NONE, true).run(args);
    }

    @Override
    public String getName() {
        return "sendlog";
    }

    @Override
    public void initialize(Bootstrap<SendlogConfiguration> bootstrap) {
        bootstrap.setConfigurationSourceProvider(new SubstitutingSourceProvider(
                bootstrap.getConfigurationSourceProvider(), new EnvironmentVariableSubstitutor(false)));
        bootstrap
                .getObjectMapper()
                .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
        bootstrap.addBundle(new AssetsBundle("/console", "/console", "index.html", "console"));
        // uPlot from its WebJar, at a path without its version (the console's page names it once).
        bootstrap.addBundle(new AssetsBundle(
                "/META-INF/resources/webjars/uplot/" + UPLOT_VERSION + "/dist",
                "/console/vendor/uplot",
                null,
                "uplot"));
        bootstrap.addCommand(new DbCommand());
        bootstrap.addCommand(new SimulatorCommand());
        bootstrap.addCommand(new LoadTestCommand());
        bootstrap.addCommand(new StatusCommand());
        bootstrap.addCommand(new ChaosCommand());
        bootstrap.addCommand(MaintenanceCommand.compact());
        bootstrap.addCommand(new DropFeedSlotCommand());
        bootstrap.addCommand(MaintenanceCommand.rebuildProjection());
        bootstrap.addCommand(new ComponentCommand(this, "api", "Runs the HTTP API only", EnumSet.of(Components.API)));
        bootstrap.addCommand(new ComponentCommand(
                this, "poller", "Runs shard leases, publishing and timers only", EnumSet.of(Components.POLLER)));
        bootstrap.addCommand(new ComponentCommand(
                this, "send-worker", "Runs send workers only", EnumSet.of(Components.SEND_WORKER)));
        bootstrap.addCommand(new ComponentCommand(
                this, "callback-worker", "Runs callback workers only", EnumSet.of(Components.CALLBACK_WORKER)));
        bootstrap.addCommand(new ComponentCommand(
                this, "webhook-worker", "Runs status webhook deliveries only", EnumSet.of(Components.WEBHOOK_WORKER)));
        bootstrap.addCommand(new ComponentCommand(
                this,
                "maintenance",
                "Runs timers, partitions, compaction and expiry only",
                EnumSet.of(Components.MAINTENANCE)));
    }

    /** How often each process sends its counts and timings to Redis (the pipeline view's freshness). */
    private static final long TALLY_FLUSH_SECONDS = 2;
    /** The uPlot WebJar's version (pom.xml: uplot.version): its files sit under a folder of that name. */
    private static final String UPLOT_VERSION = "1.6.30";

    private static double processCpuSeconds() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                        instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime() / 1e9
                : Double.NaN;
    }

    @Override
    public void run(SendlogConfiguration config, Environment env) throws Exception {
        MetricRegistry metrics = env.metrics();
        // CPU this process has used, for the load generator's CPU per message (cheaper to read than to profile).
        metrics.gauge("process.cpu.seconds", () -> SendlogApplication::processCpuSeconds);
        LocalInfrastructure local = new LocalInfrastructure(config);
        env.lifecycle().manage(local);
        DatabaseTarget target = local.database();
        migrate(target);
        if (config.simulator.enabled) {
            ProviderSimulator simulator = ProviderSimulator.start(config.simulator.config, config.simulator.port);
            env.lifecycle().manage(managed(simulator::close));
            LOG.info("provider simulator listening on {}", simulator.baseUrl());
            if (config.simulator.smppPort > 0) {
                dev.sendlog.simulator.smpp.SmscSimulator smsc = dev.sendlog.simulator.smpp.SmscSimulator.start(
                        config.simulator.smpp, config.simulator.smppPort);
                env.lifecycle().manage(managed(smsc::close));
                LOG.info("SMSC simulator listening on 127.0.0.1:{}", smsc.port());
            }
        }
        env.lifecycle()
                .addServerLifecycleListener(server -> LOG.info(
                        "sendlog started components={} api=http://127.0.0.1:{} admin=http://127.0.0.1:{} database={}",
                        config.components,
                        Ports.application(server),
                        Ports.admin(server),
                        target.jdbcUrl()));

        CaseSensitiveHeaderCache.install(env);
        GatewaySettings.demoValueWarnings(config.gateways).forEach(LOG::warn);
        String instance = instanceName();
        PoolBudget.Budget budget = PoolBudget.compute(config, target.unpooled());
        if (!budget.fits()) {
            throw new IllegalStateException("refusing to start: the pools cannot fit in the database's connections: "
                    + budget.describe() + ". Lower database.pools.* or raise max_connections.");
        }
        LOG.info("pool budget: {}", budget.describe());
        if (!budget.fitsBesideOthers()) {
            LOG.warn(
                    "the pools fit max_connections on paper but not beside the sessions connected now: {}",
                    budget.describe());
        }
        Pools pools = new Pools(target.jdbcUrl(), config.database, metrics, instance);
        // The shutdown sequence closes the pools (and the Redis clients) after everything that uses them has stopped.
        shutdown = new ShutdownSequence(shutdownGrace(config));
        shutdown.closeLast(pools);
        env.lifecycle().manage(shutdown.closeOnStop());
        env.admin().addServlet("ready", shutdown.intake().readiness()).addMapping("/ready");

        lanes = LaneLayout.load(
                pools.dsl(PoolRole.MAINTENANCE),
                config.pipeline.shards,
                config.pipeline.highShards,
                config.tenants.entrySet().stream()
                        .filter(e -> e.getValue().weight != null)
                        .map(Map.Entry::getKey)
                        .toList(),
                config.pipeline.tenantShards);
        callbackRedisUri = local.callbackRedisUri();
        statsRedis = new RedisConnections(local.sendRedisUri(), Duration.ofSeconds(2), config.redis.cluster);
        shutdown.closeLast(statsRedis::close);
        String statsKey = config.redis.keyPrefix + "{stats}:counts";
        // Wall time, not the application's clock: these are minutes of operation, like the metrics' own windows (a
        // test that moves the application's clock by hand does not move them).
        tallies = new Tallies(
                statsRedis.connect(statsKey), config.redis.keyPrefix, instance, metrics, InstantSource.system());
        // Flushed every few seconds by a thread of its own: the pipeline's threads only add to counters in memory.
        env.lifecycle()
                .scheduledExecutorService("tallies-%d")
                .threads(1)
                .build()
                .scheduleWithFixedDelay(tallies::flush, TALLY_FLUSH_SECONDS, TALLY_FLUSH_SECONDS, TimeUnit.SECONDS);
        EventCodec codec = new EventCodec();
        EventStore events =
                new EventStore(new Histories(new RowCodec(codec)), new Actors(pools.dataSource(PoolRole.MAINTENANCE)));
        PartitionManager partitionManager =
                new PartitionManager(pools.dataSource(PoolRole.MAINTENANCE), Duration.ofSeconds(2));
        PartitionJob partitionJob = new PartitionJob(partitionManager, clock, config.partitions.daysAhead, metrics);
        partitionJob.ensure();

        Parts parts = new Parts(config, env, pools, events, codec, clock, faults, shutdown, lanes, tallies, instance);
        failureRates = HealthWiring.wire(parts, partitionManager);

        if (config.components.contains(Components.MAINTENANCE)) {
            MaintenanceWiring.wire(parts, partitionJob);
        }

        List<ComponentTask> componentTasks = List.of(
                new ComponentTask(
                        "pause",
                        pausables::keySet,
                        component -> pausable(component).pause().run()),
                new ComponentTask(
                        "resume",
                        pausables::keySet,
                        component -> pausable(component).resume().run()));
        componentTasks.forEach(env.admin()::addTask);
        // Every process checks keys (the API's callers, and on the admin port whoever runs tasks), so every process
        // syncs the configured ones: a maintenance-only node's tasks work on a database no API has used yet.
        ApiKeyStore keys = new ApiKeyStore(pools.dsl(PoolRole.API));
        CachingAuthenticator<String, Caller> authenticator = new CachingAuthenticator<>(
                metrics,
                new ApiKeyAuthenticator(keys),
                com.github.benmanes.caffeine.cache.Caffeine.newBuilder()
                        .maximumSize(10_000)
                        .expireAfterWrite(Duration.ofSeconds(config.auth.cacheSeconds)));
        env.admin()
                .addFilter(
                        "admin-port-guard",
                        new AdminPortGuard(
                                adminBindHosts(config),
                                config.adminPort.allowedHosts,
                                authenticator,
                                env.getObjectMapper(),
                                metrics))
                .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*");
        env.admin()
                .addFilter("task-arguments", new TaskArguments(componentTasks, env.getObjectMapper()))
                .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/tasks/*");
        syncKeys(config.auth, keys, authenticator);
        if (config.components.contains(Components.API)) {
            ApiWiring.wire(parts, authenticator, failureRates, statsRedis, callbackRedisUri);
        }
        // Each job type has its own bound; sharedWorkerBound (for measuring only) makes callbacks use the send bound.
        // The send bound counts jobs in progress; provider calls have their own, smaller bound inside the worker.
        int sendBound = config.pipeline.sendWorker.concurrency * config.pipeline.sendWorker.jobsPerCallSlot;
        Semaphore sendPermits = new Semaphore(sendBound);
        int callbackBound = config.receipts.sharedWorkerBound ? sendBound : config.receipts.concurrency;
        Semaphore callbackPermits = config.receipts.sharedWorkerBound ? sendPermits : new Semaphore(callbackBound);
        // SMPP receipts come in on the send workers' binds, so a send-worker process with an SMPP gateway stores them
        // in the callback inbox too: receipts are wired first, and hand the dispatch wiring their inbox.
        boolean smppReceipts = config.components.contains(Components.SEND_WORKER)
                && config.gateways.values().stream().anyMatch(GatewaySettings::isSmpp);
        Inbox inbox = null;
        if (config.components.contains(Components.API)
                || config.components.contains(Components.CALLBACK_WORKER)
                || smppReceipts) {
            inbox = wireReceipts(
                    config, env, pools, events, local, instance, callbackPermits, callbackBound, smppReceipts);
        }
        if (config.components.contains(Components.POLLER) || config.components.contains(Components.SEND_WORKER)) {
            wireDispatch(config, env, pools, events, local, instance, sendPermits, inbox);
        }
        if (config.components.contains(Components.WEBHOOK_WORKER)) {
            wireWebhooks(config, env, pools, local, instance);
        }
        // Registered last, so stopped first: the work is handed over before any component stops on its own.
        env.lifecycle().manage(shutdown.handOverOnStop());
        if (ownProcess) {
            Sigterm.handOverFirst(shutdown);
        }
    }

    /** How long a stopping process waits for provider calls in flight: the HTTP server's own grace for its requests. */
    private static Duration shutdownGrace(SendlogConfiguration config) {
        return config.getServerFactory() instanceof io.dropwizard.core.server.AbstractServerFactory server
                ? Duration.ofMillis(server.getShutdownGracePeriod().toMilliseconds())
                : Duration.ofSeconds(30);
    }

    /**
     * Status webhook deliveries (issue 27): the dispatcher that leases owed deliveries onto the webhook stream, and the
     * worker that posts them, with a Redis client, a stream, a bound, a pool and an HTTP client of their own.
     */
    private void wireWebhooks(
            SendlogConfiguration config, Environment env, Pools pools, LocalInfrastructure local, String instance)
            throws Exception {
        MetricRegistry metrics = env.metrics();
        var w = config.webhooks;
        if (w.secretKey.isBlank()) {
            throw new IllegalStateException(
                    "refusing to start the webhook worker: webhooks.secretKey is not set; it opens "
                            + "the signing secrets the API stored under it");
        }
        JobStream stream = jobStore(
                config,
                env,
                local.sendRedisUri(),
                "webhook",
                StreamKeys.webhook(config.redis.keyPrefix),
                StreamKeys.WEBHOOK_GROUP,
                instance);
        WebhookDeliveries deliveries = new WebhookDeliveries(pools.dsl(PoolRole.WEBHOOKS));
        WebhookDispatcher dispatcher = new WebhookDispatcher(
                deliveries,
                stream,
                clock,
                w.leaseTimeout.toJavaDuration(),
                w.dispatchEvery.toJavaDuration(),
                w.dispatchBatch,
                w.keepDelivered.toJavaDuration(),
                metrics);
        env.lifecycle().manage(dispatcher);
        WebhookPoster poster = new WebhookPoster(
                new WebhookTargets(w.allowPrivateTargets, WebhookTargets.SYSTEM),
                WebhookTargets.bounded(WebhookTargets.SYSTEM, WebhookTargets.RESOLVE_TIMEOUT),
                w.connectTimeout.toJavaDuration(),
                w.timeout.toJavaDuration(),
                w.concurrency);
        shutdown.closeLast(poster::close);
        StreamConsumer consumer = new StreamConsumer(
                "webhooks", stream, new Semaphore(w.concurrency), w.leaseTimeout.toJavaDuration(), metrics);
        new WebhookWorker(
                consumer,
                deliveries,
                new WebhookStore(pools.dsl(PoolRole.WEBHOOKS), SecretBox.fromBase64(w.secretKey), clock),
                poster,
                new WebhookRetries(
                        w.firstRetryWait.toJavaDuration(),
                        w.maxRetryWait.toJavaDuration(),
                        w.retryFor.toJavaDuration()),
                clock,
                w.perEndpointConcurrency,
                w.perEndpointQueue,
                metrics);
        env.lifecycle().manage(consumer);
        shutdown.consumer(consumer, null);
        pausables.put("webhook-worker", new Pausable(consumer::pauseReading, consumer::resume));
        env.admin().addTask(new RunNowTask("dispatch-webhooks", dispatcher::dispatchOnce));
    }

    private Inbox wireReceipts(
            SendlogConfiguration config,
            Environment env,
            Pools pools,
            EventStore events,
            LocalInfrastructure local,
            String instance,
            Semaphore callbackPermits,
            int callbackBound,
            boolean smppReceipts) {
        MetricRegistry metrics = env.metrics();
        ReceiptSettings r = config.receipts;
        Inbox inbox = null;
        // The callback job type has its own Redis client and connections, and may have its own Redis.
        JobStream callbackStream = jobStore(
                config,
                env,
                local.callbackRedisUri(),
                "callback",
                StreamKeys.callback(config.redis.keyPrefix),
                StreamKeys.CALLBACK_GROUP,
                instance);
        if (config.components.contains(Components.API) || smppReceipts) {
            inbox = new Inbox(
                    pools.dsl(PoolRole.CALLBACKS),
                    callbackStream,
                    clock,
                    r.inboxWriters,
                    r.storeTimeout.toJavaDuration(),
                    metrics);
            env.lifecycle().manage(inbox);
        }
        if (config.components.contains(Components.API)) {
            IntakeBound intake = new IntakeBound(r.maxConcurrentIntake, r.intakeWait.toJavaDuration(), metrics);
            env.jersey().register(new CallbackResource(config.gateways, inbox, intake, clock, metrics));
            if (r.directIntake) {
                env.servlets()
                        .addFilter(
                                "direct-callback",
                                new DirectCallback(
                                        config.gateways, inbox, intake, MAX_BODY_BYTES, env.getObjectMapper(), metrics))
                        .addMappingForUrlPatterns(
                                EnumSet.of(DispatcherType.REQUEST), true, DirectCallback.PATH_PREFIX + "*");
            }
        }
        if (config.components.contains(Components.CALLBACK_WORKER)) {
            Map<String, Vocabulary> vocabularies = new HashMap<>();
            config.gateways.forEach((name, g) -> vocabularies.put(name, Vocabulary.named(g.vocabulary, g.statusMap)));
            CallbackRecorder recorder =
                    new CallbackRecorder(pools.dsl(PoolRole.CALLBACKS), events, clock, 2, metrics, tallies);
            env.lifecycle().manage(recorder);
            // Batches on platform threads of their own: enough for every batch the bound admits to run at once.
            int batchThreads = (callbackBound + r.batchSize - 1) / r.batchSize;
            StreamConsumer consumer = new StreamConsumer(
                    "callbacks",
                    callbackStream,
                    callbackPermits,
                    Duration.ofMillis(config.pipeline.sendWorker.reclaimIdle.toMilliseconds()),
                    batchThreads,
                    metrics);
            new CallbackWorker(
                    consumer,
                    pools.dsl(PoolRole.CALLBACKS),
                    new MessageReader(pools.dsl(PoolRole.CALLBACKS), events),
                    new ReceiptMatcher(pools.dsl(PoolRole.CALLBACKS)),
                    recorder,
                    vocabularies,
                    Duration.ofMillis(r.holdWindow.toMilliseconds()),
                    r.batchSize,
                    clock,
                    "callbacks-" + instance,
                    metrics);
            env.lifecycle().manage(consumer);
            shutdown.consumer(consumer, null);
            pausables.put("callback-worker", new Pausable(consumer::pauseReading, consumer::resume));
            InboxSweeper sweeper = new InboxSweeper(pools.dsl(PoolRole.CALLBACKS), callbackStream, metrics);
            ScheduledExecutorService sweeps = env.lifecycle()
                    .scheduledExecutorService("inbox-sweeper-%d")
                    .threads(1)
                    .build();
            long every = r.sweepEvery.toMilliseconds();
            sweeps.scheduleWithFixedDelay(sweeper, every, every, TimeUnit.MILLISECONDS);
            env.admin().addTask(new RunNowTask("sweep-callback-inbox", sweeper::sweep));
        }
        return inbox;
    }

    /**
     * One job type's store: its own Redis client (closed with the application), its stream, and its two health
     * checks, {@code redis-<type>} (writable, memory) and {@code workers-<type>} (oldest unacknowledged job). The probe
     * key carries the job type's hash tag, so on a cluster it sits on the node that holds the stream.
     */
    private JobStream jobStore(
            SendlogConfiguration config,
            Environment env,
            String uri,
            String jobType,
            String streamKey,
            String group,
            String instance) {
        MetricRegistry metrics = env.metrics();
        RedisConnections redis = new RedisConnections(uri, Duration.ofSeconds(5), config.redis.cluster);
        shutdown.closeLast(redis::close);
        JobStream stream = new JobStream(redis, streamKey, group, instance);
        String probe = config.redis.keyPrefix + "{" + jobType + "}:health:" + instance;
        env.healthChecks()
                .register(
                        "redis-" + jobType,
                        new RedisHealthCheck(
                                redis.connect(probe),
                                probe,
                                config.alarms.redisMemoryWarnPercent,
                                config.alarms.redisMemoryFailPercent,
                                metrics,
                                jobType));
        env.healthChecks()
                .register(
                        "workers-" + jobType,
                        new QueueHealthCheck(
                                redis.connect(streamKey),
                                streamKey,
                                group,
                                Duration.ofMillis(config.alarms.maxQueueAge.toMilliseconds()),
                                metrics,
                                jobType));
        return stream;
    }

    private void wireDispatch(
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
                    timers,
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
                new RedisConnections(local.sendRedisUri(), Duration.ofSeconds(1), config.redis.cluster);
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
                new RedisConnections(local.sendRedisUri(), Duration.ofSeconds(1), config.redis.cluster);
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

    private Pausable pausable(String component) {
        Pausable p = pausables.get(component);
        if (p == null) {
            throw new IllegalArgumentException(
                    "no component " + component + " runs here; one of " + pausables.keySet());
        }
        return p;
    }

    /** The admin connectors' bind hosts (SENDLOG_ADMIN_BIND_HOST): the names the admin port answers to, besides loopback. */
    private static List<String> adminBindHosts(SendlogConfiguration config) {
        if (!(config.getServerFactory() instanceof DefaultServerFactory server)) {
            return List.of();
        }
        return server.getAdminConnectors().stream()
                .filter(c -> c instanceof HttpConnectorFactory)
                .map(c -> ((HttpConnectorFactory) c).getBindHost())
                .filter(java.util.Objects::nonNull)
                .toList();
    }

    private static void migrate(DatabaseTarget target) {
        var result = Migrations.migrate(target.unpooled());
        LOG.info("schema migrated applied={} version={}", result.migrationsExecuted, result.targetSchemaVersion);
    }

    /**
     * Makes the key table equal the configured keys (removed ones revoked, changed ones updated) and forgets what this
     * process cached, so here the new keys hold at once; a process already running re-reads a key it cached within
     * auth.cacheSeconds (the cache drops an entry that long after it was loaded, however often it is used).
     */
    private static void syncKeys(
            AuthSettings auth, ApiKeyStore store, CachingAuthenticator<String, Caller> authenticator) {
        List<ApiKeyStore.ConfiguredKey> configured = new java.util.ArrayList<>();
        for (AuthSettings.KeySetting key : auth.keys) {
            configured.add(new ApiKeyStore.ConfiguredKey(
                    key.key, key.tenant, Role.parse(key.role), key.tenant + "-" + key.role));
            if (key.demo) {
                LOG.warn(
                        "DEMO KEY in use: tenant={} role={} key={} (remove the demo keys from the configuration before real use)",
                        key.tenant,
                        key.role,
                        key.key);
            }
        }
        ApiKeyStore.SyncResult result = store.sync(configured);
        authenticator.invalidateAll();
        LOG.info(
                "api keys synced with the configuration keys={} inserted={} updated={} revoked={}",
                configured.size(),
                result.inserted(),
                result.updated(),
                result.revoked());
    }

    private static String instanceName() {
        String host = System.getenv().getOrDefault("HOSTNAME", "local");
        return host + "-" + ProcessHandle.current().pid();
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

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            LOG.warn("closing {} failed: {}", c, e.toString());
        }
    }

    private static Managed managed(Runnable onStop) {
        return new Managed() {
            @Override
            public void stop() {
                onStop.run();
            }
        };
    }
}
