package dev.sendlog.service;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.sendlog.compactor.PartitionManager;
import dev.sendlog.events.EventCodec;
import dev.sendlog.events.JsonMappers;
import dev.sendlog.events.Lanes;
import dev.sendlog.events.RowCodec;
import dev.sendlog.log.Actors;
import dev.sendlog.log.Histories;
import dev.sendlog.schema.Migrations;
import dev.sendlog.service.auth.AdminPortGuard;
import dev.sendlog.service.auth.ApiKeyAuthenticator;
import dev.sendlog.service.auth.ApiKeyStore;
import dev.sendlog.service.auth.Caller;
import dev.sendlog.service.auth.Role;
import dev.sendlog.service.cli.ComponentCommand;
import dev.sendlog.service.cli.DbCommand;
import dev.sendlog.service.cli.DropFeedSlotCommand;
import dev.sendlog.service.cli.MaintenanceCommand;
import dev.sendlog.service.cli.StatusCommand;
import dev.sendlog.service.config.AuthSettings;
import dev.sendlog.service.config.Components;
import dev.sendlog.service.config.GatewaySettings;
import dev.sendlog.service.config.SendlogConfiguration;
import dev.sendlog.service.db.DatabaseTarget;
import dev.sendlog.service.db.LaneLayout;
import dev.sendlog.service.db.LocalInfrastructure;
import dev.sendlog.service.db.PoolBudget;
import dev.sendlog.service.db.PoolRole;
import dev.sendlog.service.db.Pools;
import dev.sendlog.service.faults.Faults;
import dev.sendlog.service.health.FailureRates;
import dev.sendlog.service.lifecycle.ShutdownSequence;
import dev.sendlog.service.lifecycle.Sigterm;
import dev.sendlog.service.log.EventStore;
import dev.sendlog.service.queue.RedisConnections;
import dev.sendlog.service.receipts.Inbox;
import dev.sendlog.service.stats.Tallies;
import dev.sendlog.service.tasks.ComponentTask;
import dev.sendlog.service.tasks.PartitionJob;
import dev.sendlog.service.tasks.TaskArguments;
import io.dropwizard.assets.AssetsBundle;
import io.dropwizard.auth.CachingAuthenticator;
import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.core.Application;
import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jetty.HttpConnectorFactory;
import jakarta.servlet.DispatcherType;
import java.time.Duration;
import java.time.InstantSource;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The application: its commands, and the order in which a process is put together. What it shares with every
 * component is made here ({@link Parts}); each component is wired by a class of its own: {@link HealthWiring} (every
 * process), {@link MaintenanceWiring}, {@link ApiWiring}, {@link ReceiptWiring}, {@link DispatchWiring} and
 * {@link WebhookWiring}.
 */
public class SendlogApplication extends Application<SendlogConfiguration> {
    private static final Logger LOG = LoggerFactory.getLogger(SendlogApplication.class);
    /** API.md: a body over 64 KiB answers 413. */
    public static final long MAX_BODY_BYTES = 64 * 1024;
    /** Keys whose check a process remembers at once (for {@code auth.cacheSeconds}). */
    private static final int AUTH_CACHE_KEYS = 10_000;
    /** The wait for provider calls in flight at shutdown when the server factory names no grace of its own. */
    private static final Duration DEFAULT_SHUTDOWN_GRACE = Duration.ofSeconds(30);

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
        // The mapper of Jersey and the direct paths: requests run on virtual threads, which never reuse a per-thread
        // buffer pool (JsonMappers).
        bootstrap.setObjectMapper(Jackson.newObjectMapper(JsonMappers.pooledFactory()));
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
        bootstrap.addCommand(new StatusCommand());
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
        statsRedis =
                new RedisConnections(local.sendRedisUri(), ComponentWiring.STATS_REDIS_TIMEOUT, config.redis.cluster);
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
                new PartitionManager(pools.dataSource(PoolRole.MAINTENANCE), MaintenanceWiring.DDL_LOCK_TIMEOUT);
        PartitionJob partitionJob = new PartitionJob(partitionManager, clock, config.partitions.daysAhead, metrics);
        partitionJob.ensure();

        Parts parts = new Parts(
                config, env, pools, events, codec, clock, faults, shutdown, lanes, tallies, instance, pausables);
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
                        .maximumSize(AUTH_CACHE_KEYS)
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
            inbox = new ReceiptWiring(parts)
                    .wire(config, env, pools, events, local, instance, callbackPermits, callbackBound, smppReceipts);
        }
        if (config.components.contains(Components.POLLER) || config.components.contains(Components.SEND_WORKER)) {
            new DispatchWiring(parts).wire(config, env, pools, events, local, instance, sendPermits, inbox);
        }
        if (config.components.contains(Components.WEBHOOK_WORKER)) {
            new WebhookWiring(parts).wire(config, env, pools, local, instance);
        }
        // Registered last, so stopped first: the work is handed over before any component stops on its own.
        env.lifecycle().manage(shutdown.handOverOnStop());
        if (ownProcess) {
            Sigterm.handOverFirst(shutdown, Duration.ofMillis(config.http.readinessDrain.toMilliseconds()));
        }
    }

    /** How long a stopping process waits for provider calls in flight: the HTTP server's own grace for its requests. */
    private static Duration shutdownGrace(SendlogConfiguration config) {
        return config.getServerFactory() instanceof io.dropwizard.core.server.AbstractServerFactory server
                ? Duration.ofMillis(server.getShutdownGracePeriod().toMilliseconds())
                : DEFAULT_SHUTDOWN_GRACE;
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
}
