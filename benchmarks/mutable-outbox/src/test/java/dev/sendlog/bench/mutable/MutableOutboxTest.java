package dev.sendlog.bench.mutable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sendlog.bench.baseline.ProviderClient;
import dev.sendlog.bench.baseline.SubmitRequest;
import dev.sendlog.simulator.ProviderSimulator;
import dev.sendlog.simulator.SimulatorConfig;
import dev.sendlog.testkit.TestDatabase;
import dev.sendlog.testkit.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The mutable-outbox baseline on a real PostgreSQL, Redis and simulator. */
class MutableOutboxTest {
    private TestDatabase database;
    private String prefix;
    private RedisClient redis;
    private ProviderSimulator simulator;
    private ProviderClient provider;

    @BeforeEach
    void setUp() throws Exception {
        database = TestDatabase.createEmpty();
        prefix = TestRedis.prefix();
        redis = RedisClient.create(TestRedis.endpoint().uri());
        simulator =
                ProviderSimulator.start(SimulatorConfig.builder().latencyMs(2).build(), 0);
        provider = new ProviderClient(simulator.baseUrl(), "sim-token", 8);
    }

    @AfterEach
    void tearDown() throws Exception {
        provider.close();
        simulator.close();
        redis.shutdown();
        TestRedis.deleteKeys(TestRedis.endpoint(), prefix);
        database.close();
    }

    @Test
    void deliversEveryAcceptedMessageExactlyOnceAndMarksItSent() throws Exception {
        Set<String> ids = ConcurrentHashMap.newKeySet();
        try (MutableOutbox outbox = new MutableOutbox(
                database.dataSource(), redis, provider, new MutableOutbox.Settings(8, 50, 20, prefix + "queue"))) {
            outbox.start();
            try (ExecutorService clients = Executors.newFixedThreadPool(4)) {
                IntStream.range(0, 300)
                        .forEach(i -> clients.submit(
                                () -> ids.add(outbox.accept(new SubmitRequest("+4915100" + i, "message " + i)))));
            }
            assertThat(ids).hasSize(300);

            await().atMost(Duration.ofSeconds(30)).until(() -> statusCounts().getOrDefault("SENT", 0L) == 300L);
        }
        assertThat(statusCounts()).containsExactly(Map.entry("SENT", 300L));
        assertThat(simulator.keys()).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(simulator.stats().submits()).isEqualTo(300);
        assertThat(simulator.stats().duplicateSubmits()).isZero();
    }

    @Test
    void oneTickMovesOneBatchToRedisAndMarksEachRowQueued() throws Exception {
        try (MutableOutbox outbox = new MutableOutbox(
                        database.dataSource(),
                        redis,
                        provider,
                        new MutableOutbox.Settings(1, 50, 1000, prefix + "queue"));
                StatefulRedisConnection<String, String> connection = redis.connect()) {
            for (int i = 0; i < 120; i++) {
                outbox.accept(new SubmitRequest("+4915100" + i, "message " + i));
            }

            assertThat(outbox.relayOneBatch(connection.sync())).isEqualTo(50);

            assertThat(statusCounts()).containsExactly(Map.entry("PENDING", 70L), Map.entry("QUEUED", 50L));
            List<String> queued = connection.sync().lrange(prefix + "queue", 0, -1);
            assertThat(queued).hasSize(50);
            assertThat(queued.getFirst()).startsWith("1\u001f");
        }
    }

    private Map<String, Long> statusCounts() throws Exception {
        Map<String, Long> counts = new TreeMap<>();
        try (Connection connection = database.connect();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT status, count(*) FROM outbox GROUP BY status")) {
            while (rs.next()) {
                counts.put(rs.getString(1), rs.getLong(2));
            }
        }
        return counts;
    }
}
