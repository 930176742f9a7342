package dev.sendlog.service.receipts;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import dev.sendlog.service.queue.JobStream;
import dev.sendlog.service.queue.RedisConnections;
import dev.sendlog.service.queue.StreamKeys;
import dev.sendlog.testkit.TestDatabaseExtension;
import dev.sendlog.testkit.TestRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The sweeper brings back open inbox rows without feeding a backlog with duplicates. */
class InboxSweeperTest {
    @RegisterExtension
    static final TestDatabaseExtension DB = new TestDatabaseExtension();

    private final String prefix = TestRedis.prefix();
    private RedisConnections redis;
    private JobStream stream;
    private DSLContext dsl;
    private MetricRegistry metrics;
    private InboxSweeper sweeper;

    @BeforeEach
    void start() {
        redis = new RedisConnections(TestRedis.endpoint().uri(), Duration.ofSeconds(5));
        stream = new JobStream(redis, StreamKeys.callback(prefix), StreamKeys.CALLBACK_GROUP, "test");
        stream.ensureGroup();
        dsl = DSL.using(DB.dataSource(), SQLDialect.POSTGRES);
        dsl.execute("TRUNCATE callback_inbox, callback_outcomes");
        metrics = new MetricRegistry();
        sweeper = new InboxSweeper(dsl, stream, metrics);
    }

    @AfterEach
    void stop() {
        redis.close();
        TestRedis.deleteKeys(TestRedis.endpoint(), prefix);
    }

    @Test
    void aRowIsQueuedAgainAfterTwoFourEightAndSixteenSweepsThenEveryThirtyTwo() {
        List<Integer> due =
                IntStream.rangeClosed(1, 130).filter(InboxSweeper::due).boxed().toList();
        assertThat(due).containsExactly(2, 4, 8, 16, 32, 64, 96, 128);
    }

    @Test
    void openRowsComeBackOnTheBackoffScheduleAndClosedOnesNever() {
        List<Long> ids = store(3);
        List<Integer> requeuedPerSweep = new ArrayList<>();
        for (int sweep = 1; sweep <= 8; sweep++) {
            if (sweep == 5) {
                dsl.execute(
                        "INSERT INTO callback_outcomes (inbox_id, outcome, decided_at) VALUES (?, 'appended', now())",
                        ids.getFirst());
            }
            requeuedPerSweep.add(sweeper.sweep());
        }
        assertThat(requeuedPerSweep).containsExactly(0, 3, 0, 3, 0, 0, 0, 2);
        assertThat(stream.length()).isEqualTo(8);
        assertThat(metrics.counter("callbacks.requeued").getCount()).isEqualTo(8);
    }

    @Test
    void nothingIsQueuedAgainBehindABacklogAndTheRowsComeBackOnceItDrains() {
        store(5);
        List<String> backlog = stream.publish(IntStream.range(0, 1500)
                .mapToObj(i -> Map.of("inbox", "backlog-" + i))
                .toList());
        assertThat(sweeper.sweep()).isZero();
        assertThat(sweeper.sweep()).as("due, but behind 1500 queued entries").isZero();
        assertThat(metrics.counter("callbacks.requeue.deferred.backlog").getCount())
                .isEqualTo(5);
        assertThat(stream.length()).isEqualTo(1500);

        stream.ack(backlog);
        assertThat(sweeper.sweep()).isZero();
        assertThat(sweeper.sweep())
                .as("fourth sweep: due again, and the queue is short")
                .isEqualTo(5);
        assertThat(stream.length()).isEqualTo(5);
    }

    private List<Long> store(int n) {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(dsl.resultQuery(
                            "INSERT INTO callback_inbox (gateway, received_at, body) VALUES ('sim', now(), ?) RETURNING id",
                            (Object) ("{\"n\":" + i + "}").getBytes(java.nio.charset.StandardCharsets.UTF_8))
                    .fetchOne(0, Long.class));
        }
        return ids;
    }
}
