package dev.sendlog.service.send;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.codahale.metrics.MetricRegistry;
import dev.sendlog.compactor.PartitionManager;
import dev.sendlog.events.EventType;
import dev.sendlog.events.MessageIds;
import dev.sendlog.events.Shards;
import dev.sendlog.projections.Limits;
import dev.sendlog.projections.Phase;
import dev.sendlog.service.config.GatewaySettings;
import dev.sendlog.service.config.PipelineSettings;
import dev.sendlog.service.faults.Faults;
import dev.sendlog.service.log.EventAppender;
import dev.sendlog.service.log.EventStore;
import dev.sendlog.service.log.MessageReader;
import dev.sendlog.service.log.NewEvent;
import dev.sendlog.service.log.Publications;
import dev.sendlog.service.publish.TailCursor;
import dev.sendlog.service.publish.TailRow;
import dev.sendlog.service.publish.WorkPublisher;
import dev.sendlog.service.queue.JobStream;
import dev.sendlog.service.queue.RedisConnections;
import dev.sendlog.service.queue.StreamConsumer;
import dev.sendlog.service.queue.StreamKeys;
import dev.sendlog.service.send.provider.HttpProvider;
import dev.sendlog.service.support.MutableClock;
import dev.sendlog.service.timers.Timers;
import dev.sendlog.simulator.ProviderSimulator;
import dev.sendlog.simulator.SimulatorConfig;
import dev.sendlog.testkit.TestDatabaseExtension;
import dev.sendlog.testkit.TestRedis;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A provider's acceptance recorded after the message was re-driven still leaves the message watched. Found by the HA
 * chaos run (seed 9714358727792: three messages SENT and never final, their receipts parked through a failover): a
 * claim outlived its deadline while the database failed over, the timer re-drove the message and dropped the claim's
 * publication from its checks, then the worker's call came back taken and was recorded after the REDRIVEN. That
 * REDRIVEN is no longer owed (something came after it), so the poller never publishes it, and nothing watched the
 * message for its receipt's window: no status query, no OUTCOME_UNKNOWN at the window's end.
 *
 * <p>Real parts throughout: the provider simulator takes the call, the real timers re-drive the claim at the moment the
 * worker is about to record the acceptance (a clock past the claim's deadline), the worker records the acceptance on
 * top, and the real timers must then reach the message at the end of its window.
 */
class LateAcceptanceTest {
    @RegisterExtension
    static final TestDatabaseExtension DB = new TestDatabaseExtension();

    private static final int SHARDS = 16;
    private static final Duration RECONCILE_WINDOW = Duration.ofMinutes(1);

    private final String prefix = TestRedis.prefix();
    private final MessageIds ids = new MessageIds(InstantSource.system());
    private final List<AutoCloseable> toClose = new ArrayList<>();
    /** The timers' clock: past every deadline of the test's message (the worker keeps the real clock). */
    private final MutableClock timerClock = new MutableClock(Instant.now().plus(Duration.ofMinutes(10)));

    private JobStream stream;
    private DSLContext dsl;
    private EventStore store;
    private WorkPublisher publisher;
    private EventAppender appender;
    private Timers timers;
    private MessageReader reader;

    @BeforeEach
    void start() throws Exception {
        RedisConnections redis = new RedisConnections(TestRedis.endpoint().uri(), Duration.ofSeconds(5));
        toClose.add(redis::close);
        toClose.add(() -> TestRedis.deleteKeys(TestRedis.endpoint(), prefix));
        stream = new JobStream(redis, StreamKeys.send(prefix), StreamKeys.SEND_GROUP, "test");
        stream.ensureGroup();
        dsl = DSL.using(DB.dataSource(), SQLDialect.POSTGRES);
        store = EventStore.of(DB.dataSource());
        reader = new MessageReader(dsl, store);
        new PartitionManager(DB.dataSource(), Duration.ofSeconds(5)).ensure(LocalDate.now(ZoneOffset.UTC), 1);
        PipelineSettings settings = new PipelineSettings();
        MetricRegistry metrics = new MetricRegistry();
        publisher = new WorkPublisher(
                dsl,
                store.actors(),
                SendStreams.single(settings.lanes(), stream),
                java.util.Set.copyOf(settings.lanes().all()),
                settings,
                InstantSource.system(),
                "test-poller",
                Faults.NONE,
                true,
                metrics,
                dev.sendlog.service.stats.Tallies.DISABLED);
        appender = new EventAppender(dsl, store, 1, metrics, "append");
        appender.start();
        toClose.add(appender::stop);
        timers = new Timers(
                new Publications(dsl),
                reader,
                appender,
                store.actors(),
                Limits.defaults(),
                RECONCILE_WINDOW,
                timerClock,
                metrics);
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : toClose.reversed()) {
            c.close();
        }
    }

    @Test
    void anAcceptanceRecordedAfterTheClaimWasRedrivenIsWatchedUntilItsWindowEnds() throws Exception {
        UUID id = message();
        AtomicInteger redrivenAt = new AtomicInteger();
        // Just before the worker appends the acceptance: the claim's deadline has passed (the timers' clock), and the
        // timers re-drive the message as they would while the worker's call was out.
        Consumer<NewEvent> claimTimesOut = event -> {
            if (event.messageId().equals(id)
                    && event.event().type() == EventType.PROVIDER_ACCEPTED
                    && redrivenAt.get() == 0) {
                assertThat(timers.fire())
                        .as("the timers re-drive the expired claim")
                        .isEqualTo(1);
                redrivenAt.set(event.seq());
            }
        };
        attachWorker(claimTimesOut);
        long publication = publish(id);

        await().atMost(Duration.ofSeconds(30)).until(() -> types(id).contains("PROVIDER_ACCEPTED"));

        assertThat(types(id))
                .as("the acceptance is recorded on top of the REDRIVEN, once, with one charge")
                .containsExactly("CLAIMED", "REDRIVEN", "PROVIDER_ACCEPTED");
        assertThat(count("SELECT count(*) FROM ledger")).isEqualTo(1);
        assertThat(reader.find(id).orElseThrow().state().phase()).isEqualTo(Phase.SENT);
        // The REDRIVEN is no longer owed: the poller passes over it, so no publication of its own will watch the
        // message.
        assertThat(publisher.publish(
                        List.of(new TailRow(
                                Shards.of(id, SHARDS), id, redrivenAt.get(), new TailCursor(1, 2), 2, Instant.now())),
                        shard -> 1L,
                        tx -> {}))
                .isZero();
        assertThat(count("SELECT count(*) FROM publications WHERE check_at IS NOT NULL AND id = " + publication))
                .as("the acceptance brought the claim's publication back to watching the message")
                .isEqualTo(1);

        // The receipt never comes (the simulator's callbacks have nowhere to go): at the end of the window the timers
        // call the outcome unknown, as for any message the provider took.
        assertThat(timers.fire()).isEqualTo(1);
        assertThat(types(id)).containsExactly("CLAIMED", "REDRIVEN", "PROVIDER_ACCEPTED", "OUTCOME_UNKNOWN");
        assertThat(reader.find(id).orElseThrow().state().phase()).isEqualTo(Phase.UNKNOWN);
    }

    private void attachWorker(Consumer<NewEvent> beforeAppend) throws Exception {
        ProviderSimulator simulator = ProviderSimulator.start(SimulatorConfig.defaults(), 0);
        toClose.add(simulator::close);
        GatewaySettings gateway = new GatewaySettings();
        gateway.baseUrl = simulator.baseUrl();
        gateway.token = GatewaySettings.DEMO_TOKEN;
        HttpProvider provider = new HttpProvider("sim", gateway, 4);
        toClose.add(provider);
        MetricRegistry metrics = new MetricRegistry();
        StreamConsumer consumer = new StreamConsumer("send", stream, new Semaphore(4), Duration.ofSeconds(60), metrics);
        toClose.add(consumer::stop);
        SendWorker.attach(
                consumer,
                reader,
                appender,
                Map.of("sim", provider),
                new Checks(new PipelineSettings.CheckSettings(), (tenant, recipient) -> false),
                new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1)),
                Limits.defaults(),
                "http://127.0.0.1:1",
                InstantSource.system(),
                "worker-test",
                Faults.NONE,
                2,
                metrics,
                beforeAppend);
        consumer.start();
    }

    /** An accepted message (its row is the acceptance, seq 1). */
    private UUID message() {
        UUID id = ids.next();
        dsl.execute(
                "INSERT INTO messages (id, tenant, shard, recipient, body, gateway, accepted_at) VALUES (?, 'acme', ?, "
                        + "'+4915100000001', 'hi', 'sim', now())",
                id,
                Shards.of(id, SHARDS));
        return id;
    }

    /** Puts the message's first attempt on the stream and records its publication, as the poller does; its id. */
    private long publish(UUID id) {
        int published = publisher.publish(
                List.of(new TailRow(Shards.of(id, SHARDS), id, 1, new TailCursor(1, 1), 1, Instant.now())),
                shard -> 1L,
                tx -> {});
        assertThat(published).isEqualTo(1);
        return dsl.fetchSingle("SELECT id FROM publications WHERE ? = ANY(message_ids)", id)
                .get(0, Long.class);
    }

    private long count(String sql) {
        return dsl.fetchSingle(sql).get(0, Long.class);
    }

    private List<String> types(UUID id) {
        return dsl.fetch("SELECT type FROM message_events WHERE message_id = ? ORDER BY seq", id)
                .map(r -> EventType.ofCode(r.get(0, Integer.class)).name());
    }
}
