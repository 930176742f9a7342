package dev.sendlog.service.support;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.sendlog.infra.RedisEndpoint;
import dev.sendlog.service.SendlogApplication;
import dev.sendlog.service.config.SendlogConfiguration;
import dev.sendlog.service.faults.Faults;
import dev.sendlog.simulator.ProviderSimulator;
import dev.sendlog.simulator.ReceiptMode;
import dev.sendlog.simulator.SimulatorConfig;
import dev.sendlog.testkit.LocalRedisCluster;
import dev.sendlog.testkit.LogicalPostgres;
import dev.sendlog.testkit.PrivateRedis;
import dev.sendlog.testkit.TestDatabase;
import dev.sendlog.testkit.TestRedis;
import io.dropwizard.configuration.ConfigurationSourceProvider;
import io.dropwizard.core.Application;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import io.dropwizard.testing.ResourceHelpers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts the real service for a test class: a fresh migrated database, a Redis key prefix of its own (or a
 * private redis-server), the provider simulator over real HTTP, the application on free ports with a clock
 * the test controls and faults it can arm, and an HTTP client. Everything is stopped and dropped after.
 */
public class ServiceHarness implements BeforeAllCallback, AfterAllCallback {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private final Map<String, String> overrides = new LinkedHashMap<>();
    private Consumer<ObjectNode> configEdit;
    private final MutableClock clock;
    private final Faults faults = new Faults();
    private SimulatorConfig simulatorConfig = SimulatorConfig.defaults().toBuilder()
            .latencyMs(5)
            .receiptMode(ReceiptMode.NONE)
            .build();
    private boolean privateRedis;
    private final List<String> moreGatewaysOnSimulator = new ArrayList<>();
    private long privateRedisMaxBytes;
    private long callbackRedisMaxBytes = -1;
    private boolean cdcFeed;
    private dev.sendlog.infra.PostgresEndpoint postgresCluster;
    private PrivateRedis callbackRedis;
    private TestDatabase database;
    private PrivateRedis ownRedis;
    private int clusterMasters;
    private LocalRedisCluster cluster;
    private RedisEndpoint redis;
    private String prefix;
    private ProviderSimulator simulator;
    private DropwizardTestSupport<SendlogConfiguration> support;
    private ApiClient api;
    private int appPort;

    public ServiceHarness(String... keyValues) {
        this(MutableClock.startingNow(), keyValues);
    }

    public ServiceHarness(MutableClock clock, String... keyValues) {
        this.clock = clock;
        for (int i = 0; i + 1 < keyValues.length; i += 2) {
            overrides.put(keyValues[i], keyValues[i + 1]);
        }
    }

    /** The simulator's behaviour at start (default: 5 ms latency, no errors, no receipts). */
    public ServiceHarness simulator(SimulatorConfig config) {
        this.simulatorConfig = config;
        return this;
    }

    /** Points another configured gateway (besides {@code sim}) at the same simulator; its token must be the simulator's. */
    public ServiceHarness gatewayOnSimulator(String gateway) {
        moreGatewaysOnSimulator.add(gateway);
        return this;
    }

    /** A redis-server of the test's own, which it may stop, restart empty, pause or fill. */
    public ServiceHarness privateRedis() {
        this.privateRedis = true;
        return this;
    }

    /** A private redis-server limited to {@code maxBytes} with noeviction: writes fail once it is full. */
    public ServiceHarness privateRedis(long maxBytes) {
        this.privateRedis = true;
        this.privateRedisMaxBytes = maxBytes;
        return this;
    }

    /** Both job types on a Redis Cluster of the test's own ({@code masters} nodes), through Lettuce's cluster client. */
    public ServiceHarness redisCluster(int masters) {
        this.clusterMasters = masters;
        return this;
    }

    /**
     * The poller's change-data-capture feed ({@code pipeline.feed: cdc}), on a database of a PostgreSQL of the tests'
     * own that runs with {@code wal_level=logical}; the slot is named after the database (slots are cluster-wide).
     */
    public ServiceHarness cdcFeed() {
        this.cdcFeed = true;
        return this;
    }

    /** The test database on this PostgreSQL (a private one, configured as the test needs) instead of the shared one. */
    public ServiceHarness onPostgres(dev.sendlog.infra.PostgresEndpoint cluster) {
        this.postgresCluster = cluster;
        return this;
    }

    /** The feed settings a poller of this test must share ({@code pipeline.feed} and the slot), for other processes. */
    public Map<String, String> feedOverrides() {
        Map<String, String> feed = new LinkedHashMap<>();
        overrides.forEach((k, v) -> {
            if (k.equals("pipeline.feed") || k.startsWith("pipeline.cdc.")) {
                feed.put(k, v);
            }
        });
        return feed;
    }

    /** The callback job type on a redis-server of its own (limited to {@code maxBytes}, 0 for none). */
    public ServiceHarness separateCallbackRedis(long maxBytes) {
        this.callbackRedisMaxBytes = maxBytes;
        return this;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        if (cdcFeed) {
            database = TestDatabase.create(postgresCluster != null ? postgresCluster : LogicalPostgres.endpoint());
            overrides.put("pipeline.feed", "cdc");
            overrides.put("pipeline.cdc.slot", "feed_" + database.name());
        } else {
            database = postgresCluster != null ? TestDatabase.create(postgresCluster) : TestDatabase.create();
        }
        if (callbackRedisMaxBytes >= 0) {
            callbackRedis = (callbackRedisMaxBytes > 0
                            ? PrivateRedis.withMaxMemoryBytes(callbackRedisMaxBytes)
                            : new PrivateRedis())
                    .start();
            overrides.put("redis.callbackUri", callbackRedis.endpoint().uri());
        }
        if (clusterMasters > 0) {
            cluster = LocalRedisCluster.start(clusterMasters);
            redis = cluster.seed();
            overrides.put("redis.cluster", "true");
        } else if (privateRedis) {
            ownRedis = (privateRedisMaxBytes > 0
                            ? PrivateRedis.withMaxMemoryBytes(privateRedisMaxBytes)
                            : new PrivateRedis())
                    .start();
            redis = ownRedis.endpoint();
        } else {
            redis = TestRedis.endpoint();
        }
        prefix = TestRedis.prefix();
        simulator = ProviderSimulator.start(simulatorConfig, 0);
        start();
    }

    /**
     * Edits test-config.yml, as a tree, before each later start of the application (null: as it is), for what an
     * override cannot say, such as a shorter list of keys. Takes effect at the next {@link #start()}.
     */
    public ServiceHarness configure(Consumer<ObjectNode> edit) {
        this.configEdit = edit;
        return this;
    }

    /** Starts (or starts again after {@link #stop()}) the application on the same database, Redis and simulator. */
    public void start() throws Exception {
        if (appPort == 0) {
            // Fixed before start, because providers must be told where to call back (publicBaseUrl).
            appPort = dev.sendlog.testkit.Ports.free();
        }
        support = application(appPort, configEdit, Map.of());
        support.before();
        api = new ApiClient("http://127.0.0.1:" + support.getLocalPort());
    }

    /**
     * A second process of the same deployment: another instance of the application on this test's database, Redis and
     * simulator, on ports of its own, with {@code edit} applied to the configuration and these overrides (key, value...)
     * on top of the harness's. The caller closes it.
     */
    public Instance startAnother(Consumer<ObjectNode> edit, String... keyValues) throws Exception {
        Map<String, String> more = new LinkedHashMap<>();
        for (int i = 0; i + 1 < keyValues.length; i += 2) {
            more.put(keyValues[i], keyValues[i + 1]);
        }
        DropwizardTestSupport<SendlogConfiguration> other = application(dev.sendlog.testkit.Ports.free(), edit, more);
        other.before();
        return new Instance(other);
    }

    private DropwizardTestSupport<SendlogConfiguration> application(
            int port, Consumer<ObjectNode> edit, Map<String, String> more) {
        List<ConfigOverride> all = new ArrayList<>();
        all.add(ConfigOverride.config("server.applicationConnectors[0].port", Integer.toString(port)));
        all.add(ConfigOverride.config("publicBaseUrl", "http://127.0.0.1:" + port));
        all.add(ConfigOverride.config("database.url", database.jdbcUrl()));
        all.add(ConfigOverride.config("redis.sendUri", redis.uri()));
        all.add(ConfigOverride.config("redis.keyPrefix", prefix));
        all.add(ConfigOverride.config("gateways.sim.baseUrl", simulator.baseUrl()));
        moreGatewaysOnSimulator.forEach(
                g -> all.add(ConfigOverride.config("gateways." + g + ".baseUrl", simulator.baseUrl())));
        // One override per key: DropwizardTestSupport applies them from a set in no set order, so a key given twice
        // (the harness's and another instance's own) could come out either way.
        Map<String, String> merged = new LinkedHashMap<>(overrides);
        merged.putAll(more);
        merged.forEach((k, v) -> all.add(ConfigOverride.config(k, v)));
        MutableClock appClock = clock;
        Faults appFaults = faults;
        String config = ResourceHelpers.resourceFilePath("test-config.yml");
        // null keeps the application's own source (environment substitution over the file).
        ConfigurationSourceProvider source = edit == null
                ? null
                : path -> {
                    ObjectNode tree = (ObjectNode) YAML.readTree(new java.io.File(path));
                    edit.accept(tree);
                    return new java.io.ByteArrayInputStream(YAML.writeValueAsBytes(tree));
                };
        return new DropwizardTestSupport<>(
                SendlogApplication.class, config, source, all.toArray(ConfigOverride[]::new)) {
            @Override
            public Application<SendlogConfiguration> newApplication() {
                return new SendlogApplication(appClock, appFaults);
            }
        };
    }

    /** Another running instance of the application (see {@link #startAnother}). */
    public static final class Instance implements AutoCloseable {
        private final DropwizardTestSupport<SendlogConfiguration> support;

        private Instance(DropwizardTestSupport<SendlogConfiguration> support) {
            this.support = support;
        }

        public ApiClient api() {
            return new ApiClient("http://127.0.0.1:" + support.getLocalPort());
        }

        public ApiClient admin() {
            return ApiClient.admin("http://127.0.0.1:" + support.getAdminPort());
        }

        @Override
        public void close() {
            support.after();
        }
    }

    public void stop() {
        if (support != null) {
            support.after();
            support = null;
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        try {
            stop();
        } finally {
            try {
                if (simulator != null) {
                    simulator.close();
                }
                if (callbackRedis != null) {
                    callbackRedis.close();
                }
                if (cluster != null) {
                    cluster.close();
                } else if (ownRedis != null) {
                    ownRedis.close();
                } else if (redis != null) {
                    TestRedis.deleteKeys(redis, prefix);
                }
            } finally {
                if (database != null) {
                    database.close();
                }
            }
        }
    }

    public ApiClient api() {
        return api;
    }

    public ApiClient admin() {
        return ApiClient.admin("http://127.0.0.1:" + support.getAdminPort());
    }

    public MutableClock clock() {
        return clock;
    }

    public Instant now() {
        return clock.instant();
    }

    public Faults faults() {
        return faults;
    }

    public DataSource dataSource() {
        return database.dataSource();
    }

    public TestDatabase database() {
        return database;
    }

    public ProviderSimulator simulator() {
        return simulator;
    }

    public PrivateRedis callbackRedisServer() {
        return callbackRedis;
    }

    public LocalRedisCluster redisClusterNodes() {
        return cluster;
    }

    public PrivateRedis privateRedisServer() {
        return ownRedis;
    }

    public RedisEndpoint redis() {
        return redis;
    }

    public String redisPrefix() {
        return prefix;
    }

    /** A connection to the test's Redis, for checking what is (not) left there; the caller closes the client. */
    public RedisClient redisClient() {
        return RedisClient.create(redis.uri());
    }

    public StatefulRedisConnection<String, String> redisConnection(RedisClient client) {
        return client.connect();
    }

    /** The named health check's state on the admin port, e.g. {@code healthy("pollers")}. */
    public boolean healthy(String check) {
        return admin().get("/healthcheck", null)
                .json()
                .path(check)
                .path("healthy")
                .asBoolean(false);
    }

    /** A counter of the application's metrics registry as the admin port shows it (0 when it has none yet). */
    public long counter(String name) {
        return metric("counters", name, "count");
    }

    /** How many times a timer of the application's metrics registry has run, as the admin port shows it (0: none yet). */
    public long timerCount(String name) {
        return metric("timers", name, "count");
    }

    /** A gauge of the application's metrics registry as the admin port shows it (0 when it has none yet). */
    public long gauge(String name) {
        return metric("gauges", name, "value");
    }

    private long metric(String kind, String name, String field) {
        return admin().get("/metrics", null)
                .json()
                .path(kind)
                .path(name)
                .path(field)
                .asLong();
    }

    public String healthMessage(String check) {
        return admin().get("/healthcheck", null)
                .json()
                .path(check)
                .path("message")
                .asText();
    }

    public SendlogConfiguration configuration() {
        return support.getConfiguration();
    }
}
