package dev.sendlog.service;

import com.codahale.metrics.MetricRegistry;
import dev.sendlog.events.EventCodec;
import dev.sendlog.events.Lanes;
import dev.sendlog.events.MessageIds;
import dev.sendlog.service.accept.AcceptService;
import dev.sendlog.service.accept.AcceptWriter;
import dev.sendlog.service.accept.Routes;
import dev.sendlog.service.accept.SenderPolicy;
import dev.sendlog.service.accept.Submission;
import dev.sendlog.service.accept.SuppressionStore;
import dev.sendlog.service.api.SubmitParser;
import dev.sendlog.service.auth.ApiKeyStore;
import dev.sendlog.service.auth.BearerHeaderAuthFilter;
import dev.sendlog.service.auth.Caller;
import dev.sendlog.service.auth.CallerAuthorizer;
import dev.sendlog.service.auth.ProblemUnauthorizedHandler;
import dev.sendlog.service.config.SendlogConfiguration;
import dev.sendlog.service.controls.AdminActions;
import dev.sendlog.service.controls.Cancellation;
import dev.sendlog.service.db.PoolRole;
import dev.sendlog.service.db.Pools;
import dev.sendlog.service.errors.BodyLimitFilter;
import dev.sendlog.service.errors.HeaderSyntaxFilter;
import dev.sendlog.service.errors.ProblemErrorHandler;
import dev.sendlog.service.errors.ProblemMappers;
import dev.sendlog.service.faults.Faults;
import dev.sendlog.service.health.FailureRates;
import dev.sendlog.service.http.AccessLog;
import dev.sendlog.service.http.EagerBody;
import dev.sendlog.service.http.RefusedWithoutBody;
import dev.sendlog.service.http.ResponseHeaders;
import dev.sendlog.service.lifecycle.ShutdownSequence;
import dev.sendlog.service.log.EventStore;
import dev.sendlog.service.log.GroupCommit;
import dev.sendlog.service.log.MessageReader;
import dev.sendlog.service.overview.PipelineOverview;
import dev.sendlog.service.queue.RedisConnections;
import dev.sendlog.service.queue.StreamKeys;
import dev.sendlog.service.receipts.ParkedStore;
import dev.sendlog.service.resources.AdminResource;
import dev.sendlog.service.resources.DirectSubmit;
import dev.sendlog.service.resources.MessagesResource;
import dev.sendlog.service.resources.OpenApiResource;
import dev.sendlog.service.resources.SuppressionsResource;
import dev.sendlog.service.resources.WebhookAdminResource;
import dev.sendlog.service.resources.WebhookResource;
import dev.sendlog.service.stats.Tallies;
import dev.sendlog.service.webhooks.SecretBox;
import dev.sendlog.service.webhooks.WebhookDeliveries;
import dev.sendlog.service.webhooks.WebhookStore;
import dev.sendlog.service.webhooks.WebhookTargets;
import io.dropwizard.auth.AuthDynamicFeature;
import io.dropwizard.auth.AuthValueFactoryProvider;
import io.dropwizard.auth.CachingAuthenticator;
import io.dropwizard.core.setup.Environment;
import jakarta.servlet.DispatcherType;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.glassfish.jersey.server.filter.RolesAllowedDynamicFeature;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The HTTP API: its filters, authentication, the accept path, and the client, support and admin resources. */
final class ApiWiring {
    private static final Logger LOG = LoggerFactory.getLogger(ApiWiring.class);

    private ApiWiring() {}

    static void wire(
            Parts parts,
            CachingAuthenticator<String, Caller> authenticator,
            FailureRates failureRates,
            RedisConnections statsRedis,
            String callbackRedisUri) {
        SendlogConfiguration config = parts.config();
        Environment env = parts.env();
        Pools pools = parts.pools();
        EventStore events = parts.events();
        EventCodec codec = parts.codec();
        InstantSource clock = parts.clock();
        Faults faults = parts.faults();
        ShutdownSequence shutdown = parts.shutdown();
        Lanes lanes = parts.lanes();
        Tallies tallies = parts.tallies();
        MetricRegistry metrics = env.metrics();

        // Ahead of every other filter: security headers on every answer, and one access-log line per request.
        env.servlets()
                .addFilter("response-headers", new ResponseHeaders())
                .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*");
        env.servlets()
                .addFilter("access-log", new AccessLog())
                .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*");
        // Bodies are received before a request thread takes the request (slow clients hold no thread).
        EagerBody.install(
                env,
                SendlogApplication.MAX_BODY_BYTES,
                config.http.minBodyBytesPerSecond.toBytes(),
                config.http.bodyGrace.toJavaDuration(),
                new RefusedWithoutBody(config.gateways.keySet(), authenticator));
        ProblemMappers.register(env.jersey(), metrics);
        // Ahead of every other filter (the direct paths included): once shutdown begins, new requests get 503.
        env.servlets()
                .addFilter("intake", shutdown.intake().filter(env.getObjectMapper()))
                .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), false, "/*");
        env.jersey().register(new BodyLimitFilter(SendlogApplication.MAX_BODY_BYTES));
        env.jersey().register(new HeaderSyntaxFilter());
        ProblemErrorHandler.install(env);

        env.jersey()
                .register(new AuthDynamicFeature(new BearerHeaderAuthFilter.Builder<Caller>()
                        .setAuthenticator(authenticator)
                        .setAuthorizer(new CallerAuthorizer())
                        .setPrefix("Bearer")
                        .setRealm("sendlog")
                        .setUnauthorizedHandler(new ProblemUnauthorizedHandler())
                        .buildAuthFilter()));
        env.jersey().register(RolesAllowedDynamicFeature.class);
        env.jersey().register(new AuthValueFactoryProvider.Binder<>(Caller.class));

        AcceptWriter writer = new AcceptWriter(
                pools.dsl(PoolRole.API),
                new MessageIds(clock),
                clock,
                lanes,
                Duration.ofMillis(config.accept.idempotencyTtl.toMilliseconds()),
                tallies);
        GroupCommit<Submission> groupCommitter = null;
        if (config.accept.groupCommit) {
            groupCommitter = new GroupCommit<>(
                    "accept",
                    writer::write,
                    config.accept.writers,
                    config.accept.maxBatchMessages,
                    config.accept.maxWaitMs,
                    config.accept.queueCapacity,
                    metrics);
            env.lifecycle().manage(groupCommitter);
        }
        Routes routes = new Routes(config.routes, config.gateways.keySet(), config.defaultGateway);
        AcceptService accept = new AcceptService(
                writer,
                groupCommitter,
                config.database.connectionTimeoutMs + 10_000L,
                faults,
                new SenderPolicy(config.tenants),
                routes);
        SubmitParser parser =
                new SubmitParser(config.gateways.keySet(), config.pipeline.checks.recipientPattern, clock);
        MessageReader reader = new MessageReader(pools.dsl(PoolRole.API), events);
        env.jersey()
                .register(new MessagesResource(
                        parser,
                        accept,
                        reader,
                        codec,
                        config.publicBaseUrl,
                        new Cancellation(pools.dsl(PoolRole.API), events, reader, clock),
                        lanes,
                        new WebhookDeliveries(pools.dsl(PoolRole.API))));
        env.jersey().register(new OpenApiResource());
        env.jersey()
                .register(new SuppressionsResource(
                        new SuppressionStore(pools.dsl(PoolRole.API), clock), config.pipeline.checks.recipientPattern));
        if (config.webhooks.secretKey.isBlank()) {
            throw new IllegalStateException(
                    "refusing to start the API: webhooks.secretKey is not set (base64 of 32 random "
                            + "bytes, e.g. SENDLOG_WEBHOOK_SECRET_KEY=$(openssl rand -base64 32)); webhook secrets are stored under it");
        }
        config.webhooks.devKeyWarnings().forEach(LOG::warn);
        env.jersey()
                .register(new WebhookResource(
                        new WebhookStore(
                                pools.dsl(PoolRole.API), SecretBox.fromBase64(config.webhooks.secretKey), clock),
                        new WebhookTargets(
                                config.webhooks.allowPrivateTargets,
                                WebhookTargets.bounded(WebhookTargets.SYSTEM, WebhookTargets.RESOLVE_TIMEOUT))));
        if (config.accept.directSubmit) {
            env.servlets()
                    .addFilter(
                            "direct-submit",
                            new DirectSubmit(
                                    authenticator,
                                    parser,
                                    accept,
                                    SendlogApplication.MAX_BODY_BYTES,
                                    env.getObjectMapper(),
                                    config.publicBaseUrl,
                                    metrics))
                    .addMappingForUrlPatterns(
                            EnumSet.of(DispatcherType.REQUEST), true, DirectSubmit.PATH, DirectSubmit.BATCH_PATH);
        }
        env.jersey().register(new WebhookAdminResource(new WebhookDeliveries(pools.dsl(PoolRole.API)), clock));
        env.jersey()
                .register(new AdminResource(
                        reader,
                        new AdminActions(pools.dsl(PoolRole.API), events, reader, clock),
                        new ParkedStore(pools.dsl(PoolRole.API), events, reader, clock),
                        lanes,
                        metrics,
                        new ApiKeyStore(pools.dsl(PoolRole.API)),
                        pipelineOverview(parts, failureRates, statsRedis, callbackRedisUri)));
    }

    /**
     * The pipeline view's reader: the stats Redis, each send lane's stream and the callback stream (each on the node of
     * its hash tag), the owed webhook deliveries, and this process's health checks and alarms.
     */
    private static PipelineOverview pipelineOverview(
            Parts parts, FailureRates failureRates, RedisConnections statsRedis, String callbackRedisUri) {
        SendlogConfiguration config = parts.config();
        Environment env = parts.env();
        Pools pools = parts.pools();
        ShutdownSequence shutdown = parts.shutdown();
        Lanes lanes = parts.lanes();

        String prefix = config.redis.keyPrefix;
        List<PipelineOverview.Stream> send = new ArrayList<>();
        for (Lanes.Lane lane : lanes.all()) {
            String key = StreamKeys.sendLane(prefix, lane);
            send.add(new PipelineOverview.Stream(statsRedis.connect(key), key, StreamKeys.SEND_GROUP));
        }
        RedisConnections callbackRedis =
                new RedisConnections(callbackRedisUri, ComponentWiring.STATS_REDIS_TIMEOUT, config.redis.cluster);
        shutdown.closeLast(callbackRedis::close);
        String callbackKey = StreamKeys.callback(prefix);
        return new PipelineOverview(
                statsRedis.connect(prefix + "{stats}:counts"),
                prefix,
                pools.dsl(PoolRole.API),
                send,
                new PipelineOverview.Stream(callbackRedis.connect(callbackKey), callbackKey, StreamKeys.CALLBACK_GROUP),
                new WebhookDeliveries(pools.dsl(PoolRole.API)),
                env.healthChecks(),
                failureRates::alarms,
                InstantSource.system());
    }
}
