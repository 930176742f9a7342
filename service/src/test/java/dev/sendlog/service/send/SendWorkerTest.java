package dev.sendlog.service.send;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import dev.sendlog.compactor.PartitionManager;
import dev.sendlog.events.EventType;
import dev.sendlog.events.MessageIds;
import dev.sendlog.events.Resolved;
import dev.sendlog.events.Shards;
import dev.sendlog.projections.Limits;
import dev.sendlog.projections.Phase;
import dev.sendlog.service.config.PipelineSettings;
import dev.sendlog.service.faults.Faults;
import dev.sendlog.service.log.EventAppender;
import dev.sendlog.service.log.EventStore;
import dev.sendlog.service.log.MessageReader;
import dev.sendlog.service.log.NewEvent;
import dev.sendlog.service.publish.TailCursor;
import dev.sendlog.service.publish.TailRow;
import dev.sendlog.service.publish.WorkPublisher;
import dev.sendlog.service.queue.JobStream;
import dev.sendlog.service.queue.RedisConnections;
import dev.sendlog.service.queue.StreamConsumer;
import dev.sendlog.service.queue.StreamKeys;
import dev.sendlog.service.support.Messages;
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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.function.Consumer;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * The send worker's last two fixes of issue 24, item 21, on a real database and stream: a result that loses its seq
 * five times in a row is given up counted and logged, and a worker is handed no read before it is whole.
 */
class SendWorkerTest {
    @RegisterExtension
    static final TestDatabaseExtension DB = new TestDatabaseExtension();

    private static final int SHARDS = 16;
    /** Its messages fail the worker's check: the result (REJECTED) is decided without a provider. */
    private static final String BLOCKED_TENANT = "suspended";

    private final String prefix = TestRedis.prefix();
    private final MessageIds ids = new MessageIds(InstantSource.system());
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private RedisConnections redis;
    private JobStream stream;
    private DSLContext dsl;
    private EventStore store;
    private WorkPublisher publisher;
    private Logged logged;

    @BeforeEach
    void start() throws Exception {
        redis = new RedisConnections(TestRedis.endpoint().uri(), Duration.ofSeconds(5));
        stream = new JobStream(redis, StreamKeys.send(prefix), StreamKeys.SEND_GROUP, "test");
        stream.ensureGroup();
        dsl = DSL.using(DB.dataSource(), SQLDialect.POSTGRES);
        store = EventStore.of(DB.dataSource());
        new PartitionManager(DB.dataSource(), Duration.ofSeconds(5)).ensure(LocalDate.now(ZoneOffset.UTC), 1);
        PipelineSettings settings = new PipelineSettings();
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
                new MetricRegistry(),
                dev.sendlog.service.stats.Tallies.DISABLED);
        logged = Logged.attach();
    }

    @AfterEach
    void stop() throws Exception {
        logged.detach();
        for (AutoCloseable c : toClose.reversed()) {
            c.close();
        }
        redis.close();
        TestRedis.deleteKeys(TestRedis.endpoint(), prefix);
    }

    /**
     * Before the fix the worker gave up without a counter (only {@code send.outcomes.unrecorded}, which also counts
     * other failures), so nobody could tell races given up from database failures. The races are real: each time, just
     * before the worker appends its REJECTED, support's discard of parked input for the message commits at that seq
     * through its own transaction, as {@code ParkedStore.resolve} writes it, and the worker's INSERT hits the event key.
     * A discard does not move the message on (still CLAIMED, same attempt), so the worker reads again and tries the
     * next seq, five times.
     */
    @Test
    void aResultThatLosesFiveRacesInARowIsGivenUpCountedAndLogged() throws Exception {
        UUID id = message();
        List<Integer> taken = new CopyOnWriteArrayList<>();
        Consumer<NewEvent> competingDiscard = event -> {
            if (event.messageId().equals(id) && event.event().type() == EventType.REJECTED) {
                NewEvent discard = new NewEvent(
                        id,
                        event.seq(),
                        Shards.of(id, SHARDS),
                        "support-1",
                        Instant.now(),
                        new Resolved(taken.size() + 1, Resolved.Action.DISCARD, null, "a late callback nobody needs"));
                dsl.transaction(cfg -> store.append(cfg.dsl(), List.of(discard)));
                taken.add(event.seq());
            }
        };
        MetricRegistry metrics = new MetricRegistry();
        StreamConsumer consumer = consumer(Duration.ofSeconds(60), metrics);
        attach(consumer, metrics, competingDiscard);
        consumer.start();
        publish(id);

        // Counted before the fix too: the moment the worker gave up, whether or not it says why.
        await().atMost(Duration.ofSeconds(30))
                .until(() -> metrics.counter("send.outcomes.unrecorded").getCount() == 1);

        assertThat(metrics.counter("send.races.given.up").getCount()).isEqualTo(1);
        assertThat(metrics.counter("messages.rejected").getCount())
                .as("no rejection was recorded, so none is counted")
                .isZero();
        assertThat(logged.lines())
                .anySatisfy(l ->
                        assertThat(l).startsWith("WARN result lost 5 races in a row message_id=" + id + " attempt=1"));
        assertThat(taken)
                .as("one competing event at each seq the worker tried, after CLAIMED at 3")
                .containsExactly(4, 5, 6, 7, 8);
        assertThat(metrics.counter("append.rewrites.after.lost.seq").getCount())
                .as("each of the worker's appends hit the taken seq in the database")
                .isEqualTo(5);
        assertThat(types(id)).containsExactly("CLAIMED", "RESOLVED", "RESOLVED", "RESOLVED", "RESOLVED", "RESOLVED");
        assertThat(new MessageReader(dsl, store).find(id).orElseThrow().state().phase())
                .as("left claimed: the claim deadline brings it back")
                .isEqualTo(Phase.CLAIMED);
    }

    /**
     * Before the fix the constructor registered {@code this::claimAndDispatch} before it set the worker's fields, so a
     * consumer already reading could hand a read to a worker whose metrics, call semaphore and publications were not set
     * yet (a NullPointerException in the reader thread, the entry left pending and its permit lost). The app starts its
     * consumer after the worker is built; here the worker is attached to a consumer that is reading, and the
     * construction is held (by the metric registry it registers its metrics in) until a job that arrives meanwhile has
     * been handed out. It must go to the handler registered before, not into the half-built worker; once whole, the
     * worker takes it when the entry is reclaimed and decides it.
     */
    @Test
    void aWorkerAttachedToAReadingConsumerIsHandedNoReadBeforeItIsWhole() throws Exception {
        UUID id = message();
        List<String> handedBefore = new CopyOnWriteArrayList<>();
        MetricRegistry plain = new MetricRegistry();
        StreamConsumer consumer = consumer(Duration.ofMillis(300), plain);
        // Leaves what it is handed pending (the permits go back): reclaimed once idle, by whatever is registered then.
        consumer.onEntries(entries -> {
            entries.forEach(e -> handedBefore.add(e.id()));
            consumer.abandoned(entries);
        });
        consumer.start();
        MetricRegistry holding = new MetricRegistry() {
            @Override
            public Timer timer(String name, MetricSupplier<Timer> supplier) {
                if (name.equals("send.queue.wait")) {
                    // The worker's first metric: the fields are only partly set.
                    publish(id);
                    await().atMost(Duration.ofSeconds(30))
                            .until(() ->
                                    !handedBefore.isEmpty() || !readerFailures().isEmpty());
                }
                return super.timer(name, supplier);
            }
        };

        attach(consumer, holding, event -> {});

        assertThat(readerFailures()).as("the reader called nothing half-built").isEmpty();
        assertThat(handedBefore).as("the job that came during the construction").hasSize(1);
        await().atMost(Duration.ofSeconds(30)).until(() -> types(id).contains("REJECTED"));
        assertThat(types(id)).containsExactly("CLAIMED", "REJECTED");
        assertThat(readerFailures()).isEmpty();
    }

    /**
     * Jobs whose publication never committed (the poller's transaction failed at commit after its jobs reached the
     * stream, as in a failover) and that were published long ago are dropped at once, without a wait each. Before the
     * fix each such job waited five seconds for its publication on a permit of its own, whatever its age: behind a
     * backlog of them a lane claimed nothing until every job it read was stale (HA chaos seed 15714999387188: 3,848
     * messages of one lane re-driven again and again, never claimed). Here 40 of them, a minute old, lie ahead of a
     * real job on a consumer of 4 permits: with the waits, the real job is reached after 50 s.
     */
    @Test
    void jobsOfPublicationsThatNeverCommittedAreDroppedWithoutHoldingTheLane() throws Exception {
        List<UUID> orphans = new ArrayList<>();
        List<Map<String, String>> jobs = new ArrayList<>();
        long aMinuteAgo = System.currentTimeMillis() - 60_000;
        for (int i = 0; i < 40; i++) {
            UUID orphan = message();
            orphans.add(orphan);
            jobs.add(new dev.sendlog.service.queue.SendJob(
                            orphan, 1, Shards.of(orphan, SHARDS), 1, aMinuteAgo, 1, 9_000_000L + i)
                    .toFields());
        }
        stream.publish(jobs);
        UUID id = message();
        MetricRegistry metrics = new MetricRegistry();
        StreamConsumer consumer = consumer(Duration.ofSeconds(60), metrics);
        attach(consumer, metrics, event -> {});
        consumer.start();
        publish(id);

        await().atMost(Duration.ofSeconds(15)).until(() -> types(id).contains("REJECTED"));
        await().atMost(Duration.ofSeconds(15))
                .until(() ->
                        metrics.counter("send.jobs.publication.not.recorded").getCount() == 40);
        for (UUID orphan : orphans) {
            assertThat(types(orphan))
                    .as("not claimed: its work stays owed, and the timers re-drive it")
                    .isEmpty();
        }
    }

    private List<String> readerFailures() {
        return logged.lines().stream()
                .filter(l -> l.contains("reading the send stream failed"))
                .toList();
    }

    private StreamConsumer consumer(Duration reclaimIdle, MetricRegistry metrics) {
        StreamConsumer consumer = new StreamConsumer("send", stream, new Semaphore(4), reclaimIdle, metrics);
        toClose.add(consumer::stop);
        return consumer;
    }

    private SendWorker attach(StreamConsumer consumer, MetricRegistry metrics, Consumer<NewEvent> beforeResultAppend) {
        EventAppender appender = new EventAppender(dsl, store, 1, metrics, "append");
        appender.start();
        toClose.add(appender::stop);
        PipelineSettings.CheckSettings checks = new PipelineSettings.CheckSettings();
        checks.blockedTenants = List.of(BLOCKED_TENANT);
        return SendWorker.attach(
                consumer,
                new MessageReader(dsl, store),
                appender,
                Map.of(),
                new Checks(checks, (tenant, recipient) -> false),
                new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1)),
                Limits.defaults(),
                "http://127.0.0.1:1",
                InstantSource.system(),
                "worker-test",
                Faults.NONE,
                2,
                metrics,
                beforeResultAppend);
    }

    /** An accepted message of the blocked tenant (the lean log: its row is the ACCEPTED event, seq 1). */
    private UUID message() {
        UUID id = ids.next();
        Messages.insertRow(dsl, id, BLOCKED_TENANT, SHARDS);
        return id;
    }

    /** Puts the message's first attempt on the stream and records its publication, as the poller does. */
    private void publish(UUID id) {
        int published = publisher.publish(
                List.of(new TailRow(Shards.of(id, SHARDS), id, 1, new TailCursor(1, 1), 1, Instant.now())),
                shard -> 1L,
                tx -> {});
        assertThat(published).isEqualTo(1);
    }

    private List<String> types(UUID id) {
        return dsl.fetch("SELECT type FROM message_events WHERE message_id = ? ORDER BY seq", id)
                .map(r -> EventType.ofCode(r.get(0, Integer.class)).name());
    }

    /** Level and formatted message of sendlog's log lines while attached (INFO and above). */
    private static final class Logged extends AppenderBase<ILoggingEvent> {
        private final List<String> lines = new ArrayList<>();

        static Logged attach() {
            Logged l = new Logged();
            LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
            l.setContext(context);
            l.start();
            context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).addAppender(l);
            return l;
        }

        void detach() {
            ((LoggerContext) LoggerFactory.getILoggerFactory())
                    .getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)
                    .detachAppender(this);
            stop();
        }

        @Override
        protected synchronized void append(ILoggingEvent e) {
            if (e.getLoggerName().startsWith("dev.sendlog") && e.getLevel().isGreaterOrEqual(Level.INFO)) {
                lines.add(e.getLevel() + " " + e.getFormattedMessage());
            }
        }

        synchronized List<String> lines() {
            return List.copyOf(lines);
        }
    }
}
