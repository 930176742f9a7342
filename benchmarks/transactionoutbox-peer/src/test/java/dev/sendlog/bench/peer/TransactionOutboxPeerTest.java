package dev.sendlog.bench.peer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sendlog.bench.baseline.ProviderClient;
import dev.sendlog.bench.baseline.SubmitRequest;
import dev.sendlog.simulator.ProviderSimulator;
import dev.sendlog.simulator.SimulatorConfig;
import dev.sendlog.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The transactionoutbox peer on a real PostgreSQL and simulator. */
class TransactionOutboxPeerTest {
    private TestDatabase database;
    private ProviderSimulator simulator;
    private ProviderClient provider;

    @BeforeEach
    void setUp() throws Exception {
        database = TestDatabase.createEmpty();
        simulator =
                ProviderSimulator.start(SimulatorConfig.builder().latencyMs(2).build(), 0);
        provider = new ProviderClient(simulator.baseUrl(), "sim-token", 8);
    }

    @AfterEach
    void tearDown() throws Exception {
        provider.close();
        simulator.close();
        database.close();
    }

    @Test
    void deliversEveryAcceptedMessageExactlyOnceAndRecordsTheProviderId() throws Exception {
        Set<String> ids = ConcurrentHashMap.newKeySet();
        try (TransactionOutboxPeer peer =
                new TransactionOutboxPeer(database.dataSource(), provider, 2, Duration.ofSeconds(30))) {
            try (ExecutorService clients = Executors.newFixedThreadPool(2)) {
                IntStream.range(0, 300)
                        .forEach(i -> clients.submit(
                                () -> ids.add(peer.accept(new SubmitRequest("+4915100" + i, "message " + i)))));
            }
            assertThat(ids).hasSize(300);

            await().atMost(Duration.ofSeconds(30)).until(() -> count("messages WHERE provider_id IS NOT NULL") == 300);
            await().atMost(Duration.ofSeconds(5)).until(() -> count("txno_outbox") == 0);
        }
        assertThat(simulator.keys()).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(simulator.stats().submits()).isEqualTo(300);
        assertThat(simulator.stats().duplicateSubmits()).isZero();
    }

    @Test
    void aFailedCallStaysInTheOutboxAndIsRetriedByTheFlush() throws Exception {
        simulator.updateConfig(
                SimulatorConfig.builder().latencyMs(0).transientErrorRate(1.0).build());
        try (TransactionOutboxPeer peer =
                new TransactionOutboxPeer(database.dataSource(), provider, 2, Duration.ofSeconds(1))) {
            String id = peer.accept(new SubmitRequest("+4915100000001", "retried"));
            await().atMost(Duration.ofSeconds(10)).until(() -> simulator.stats().transientErrors() >= 1);
            assertThat(count("txno_outbox")).isEqualTo(1);

            simulator.updateConfig(SimulatorConfig.builder().latencyMs(0).build());

            await().atMost(Duration.ofSeconds(20)).until(() -> count("txno_outbox") == 0);
            assertThat(simulator.keys()).containsExactly(id);
            assertThat(count("messages WHERE provider_id IS NOT NULL")).isEqualTo(1);
        }
    }

    private long count(String from) throws Exception {
        try (Connection connection = database.connect();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT count(*) FROM " + from)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
