package dev.sendlog.service;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.sendlog.compactor.PartitionManager;
import dev.sendlog.events.EventCodec;
import dev.sendlog.events.MessageIds;
import dev.sendlog.schema.Migrations;
import dev.sendlog.service.api.SubmitParser;
import dev.sendlog.service.auth.ApiKeyAuthenticator;
import dev.sendlog.service.auth.ApiKeyStore;
import dev.sendlog.service.auth.Caller;
import dev.sendlog.service.auth.CallerAuthorizer;
import dev.sendlog.service.auth.ProblemUnauthorizedHandler;
import dev.sendlog.service.auth.Role;
import dev.sendlog.service.cli.ComponentCommand;
import dev.sendlog.service.cli.DbCommand;
import dev.sendlog.service.cli.LoadTestCommand;
import dev.sendlog.service.cli.SimulatorCommand;
import dev.sendlog.service.config.AuthSettings;
import dev.sendlog.service.config.Components;
import dev.sendlog.service.config.SendlogConfiguration;
import dev.sendlog.service.core.AcceptService;
import dev.sendlog.service.core.AcceptWriter;
import dev.sendlog.service.core.GroupCommitter;
import dev.sendlog.service.core.MessageReader;
import dev.sendlog.service.db.DatabaseTarget;
import dev.sendlog.service.db.EventStore;
import dev.sendlog.service.db.LocalInfrastructure;
import dev.sendlog.service.db.PoolRole;
import dev.sendlog.service.db.Pools;
import dev.sendlog.service.errors.BodyLimitFilter;
import dev.sendlog.service.errors.ProblemMappers;
import dev.sendlog.service.health.DatabaseHealthCheck;
import dev.sendlog.service.health.PartitionsHealthCheck;
import dev.sendlog.service.resources.MessagesResource;
import dev.sendlog.service.tasks.IdempotencyKeyPurge;
import dev.sendlog.service.tasks.PartitionJob;
import dev.sendlog.service.tasks.RunNowTask;
import dev.sendlog.simulator.ProviderSimulator;
import io.dropwizard.auth.AuthDynamicFeature;
import io.dropwizard.auth.AuthValueFactoryProvider;
import io.dropwizard.auth.CachingAuthenticator;
import io.dropwizard.auth.oauth.OAuthCredentialAuthFilter;
import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.lifecycle.Managed;
import java.time.Duration;
import java.time.InstantSource;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.glassfish.jersey.server.filter.RolesAllowedDynamicFeature;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The one place where sendlog is wired together. */
public class SendlogApplication extends Application<SendlogConfiguration> {
    private static final Logger LOG = LoggerFactory.getLogger(SendlogApplication.class);
    /** API.md: a body over 64 KiB answers 413. */
    public static final long MAX_BODY_BYTES = 64 * 1024;

    private final InstantSource clock;

    public SendlogApplication() {
        this(InstantSource.system());
    }

    /** Tests pass a clock they control. */
    public SendlogApplication(InstantSource clock) {
        this.clock = clock;
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("org.jooq.no-logo", "true");
        System.setProperty("org.jooq.no-tips", "true");
        new SendlogApplication().run(args);
    }

    @Override
    public String getName() {
        return "sendlog";
    }

    @Override
    public void initialize(Bootstrap<SendlogConfiguration> bootstrap) {
        bootstrap.setConfigurationSourceProvider(new SubstitutingSourceProvider(
                bootstrap.getConfigurationSourceProvider(), new EnvironmentVariableSubstitutor(false)));
        bootstrap.getObjectMapper()
                .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
        bootstrap.addCommand(new DbCommand());
        bootstrap.addCommand(new SimulatorCommand());
        bootstrap.addCommand(new LoadTestCommand());
        bootstrap.addCommand(new ComponentCommand(this, "api", "Runs the HTTP API only", EnumSet.of(Components.API)));
        bootstrap.addCommand(new ComponentCommand(this, "maintenance",
                "Runs timers, partitions, compaction and expiry only", EnumSet.of(Components.MAINTENANCE)));
    }

    @Override
    public void run(SendlogConfiguration config, Environment env) throws Exception {
        MetricRegistry metrics = env.metrics();
        LocalInfrastructure local = new LocalInfrastructure(config);
        env.lifecycle().manage(local);
        DatabaseTarget target = local.database();
        migrate(target);
        if (config.simulator.enabled) {
            ProviderSimulator simulator = ProviderSimulator.start(config.simulator.config, config.simulator.port);
            env.lifecycle().manage(managed(simulator::close));
            LOG.info("provider simulator listening on {}", simulator.baseUrl());
        }
        env.lifecycle().addServerLifecycleListener(server -> LOG.info(
                "sendlog started components={} api=http://127.0.0.1:{} admin=http://127.0.0.1:{} database={}",
                config.components, Ports.application(server), Ports.admin(server), target.jdbcUrl()));

        String instance = instanceName();
        Pools pools = new Pools(target.jdbcUrl(), config.database, metrics, instance);
        env.lifecycle().manage(managed(pools::close));

        EventCodec codec = new EventCodec();
        EventStore events = new EventStore(codec);
        PartitionManager partitionManager = new PartitionManager(pools.dataSource(PoolRole.MAINTENANCE), Duration.ofSeconds(2));
        PartitionJob partitionJob = new PartitionJob(partitionManager, clock, config.partitions.daysAhead, metrics);
        partitionJob.ensure();

        env.healthChecks().register("database", new DatabaseHealthCheck(pools.pool(PoolRole.MAINTENANCE),
                List.of(pools.pool(PoolRole.API), pools.pool(PoolRole.PIPELINE), pools.pool(PoolRole.CALLBACKS),
                        pools.pool(PoolRole.MAINTENANCE))));
        env.healthChecks().register("partitions", new PartitionsHealthCheck(partitionManager, clock, config.partitions.minDaysAhead));

        if (config.components.contains(Components.MAINTENANCE)) {
            ScheduledExecutorService maintenance = env.lifecycle().scheduledExecutorService("maintenance-%d").threads(2).build();
            long partitionEveryMs = config.partitions.checkEvery.toMilliseconds();
            maintenance.scheduleWithFixedDelay(partitionJob, partitionEveryMs, partitionEveryMs, TimeUnit.MILLISECONDS);
            IdempotencyKeyPurge purge = new IdempotencyKeyPurge(pools.dsl(PoolRole.MAINTENANCE), clock,
                    config.accept.idempotencyPurgeBatch, metrics);
            maintenance.scheduleWithFixedDelay(purge, 1, 60, TimeUnit.SECONDS);
            env.admin().addTask(new RunNowTask("purge-idempotency-keys", purge::purge));
            env.admin().addTask(new RunNowTask("ensure-partitions", partitionJob::ensure));
        }

        if (config.components.contains(Components.API)) {
            registerKeys(config.auth, new ApiKeyStore(pools.dsl(PoolRole.API)));
            wireApi(config, env, pools, events, codec);
        }
    }

    private void wireApi(SendlogConfiguration config, Environment env, Pools pools, EventStore events, EventCodec codec) {
        MetricRegistry metrics = env.metrics();
        ProblemMappers.register(env.jersey(), metrics);
        env.jersey().register(new BodyLimitFilter(MAX_BODY_BYTES));

        ApiKeyStore keys = new ApiKeyStore(pools.dsl(PoolRole.API));
        CachingAuthenticator<String, Caller> authenticator = new CachingAuthenticator<>(metrics,
                new ApiKeyAuthenticator(keys),
                com.github.benmanes.caffeine.cache.Caffeine.newBuilder()
                        .maximumSize(10_000).expireAfterWrite(Duration.ofSeconds(config.auth.cacheSeconds)));
        env.jersey().register(new AuthDynamicFeature(new OAuthCredentialAuthFilter.Builder<Caller>()
                .setAuthenticator(authenticator)
                .setAuthorizer(new CallerAuthorizer())
                .setPrefix("Bearer")
                .setRealm("sendlog")
                .setUnauthorizedHandler(new ProblemUnauthorizedHandler())
                .buildAuthFilter()));
        env.jersey().register(RolesAllowedDynamicFeature.class);
        env.jersey().register(new AuthValueFactoryProvider.Binder<>(Caller.class));

        AcceptWriter writer = new AcceptWriter(pools.dsl(PoolRole.API), events, new MessageIds(clock), clock,
                config.pipeline.shards, Duration.ofMillis(config.accept.idempotencyTtl.toMilliseconds()));
        GroupCommitter groupCommitter = null;
        if (config.accept.groupCommit) {
            groupCommitter = new GroupCommitter(writer, config.accept.writers, config.accept.maxBatchMessages,
                    config.accept.maxWaitMs, config.accept.queueCapacity, metrics);
            env.lifecycle().manage(groupCommitter);
        }
        AcceptService accept = new AcceptService(writer, groupCommitter, config.database.connectionTimeoutMs + 10_000L);
        SubmitParser parser = new SubmitParser(config.gateways.keySet(), config.defaultGateway);
        MessageReader reader = new MessageReader(pools.dsl(PoolRole.API), events);
        env.jersey().register(new MessagesResource(parser, accept, reader, codec));
    }

    private static void migrate(DatabaseTarget target) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(target.jdbcUrl());
        ds.setUser(target.user());
        ds.setPassword(target.password());
        var result = Migrations.migrate(ds);
        LOG.info("schema migrated applied={} version={}", result.migrationsExecuted, result.targetSchemaVersion);
    }

    private static void registerKeys(AuthSettings auth, ApiKeyStore store) {
        for (AuthSettings.KeySetting key : auth.keys) {
            Role role = Role.parse(key.role);
            store.register(key.key, key.tenant, role, key.tenant + "-" + key.role);
            if (key.demo) {
                LOG.warn("DEMO KEY in use: tenant={} role={} key={} (remove the demo keys from the configuration before real use)",
                        key.tenant, key.role, key.key);
            }
        }
    }

    private static String instanceName() {
        String host = System.getenv().getOrDefault("HOSTNAME", "local");
        return host + "-" + ProcessHandle.current().pid();
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
