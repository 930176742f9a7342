package dev.sendlog.service.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.codahale.metrics.MetricRegistry;
import dev.sendlog.events.Claimed;
import dev.sendlog.events.Dead;
import dev.sendlog.projections.MessageStatus;
import dev.sendlog.service.log.NewEvent;
import dev.sendlog.service.queue.QueueConnection;
import dev.sendlog.service.queue.RedisConnections;
import dev.sendlog.testkit.PrivateRedis;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The per-minute counts behind the pipeline view (issue 31), against a real redis-server of the test's own: each count
 * reaches its minute's hash once (as this process's total: a write repeated after a stall adds nothing twice), a flush
 * Redis refuses keeps its counts for the next one, counts kept past ten
 * minutes are dropped and counted, and only committed status changes count.
 */
class TalliesTest {
    private static final String PREFIX = "tallies-test:";
    private static final long MINUTE = 29_000_000L;

    @RegisterExtension
    static final PrivateRedis REDIS = new PrivateRedis();

    private final AtomicLong now = new AtomicLong(MINUTE * 60_000 + 5_000);
    private final InstantSource clock = () -> Instant.ofEpochMilli(now.get());
    private final MetricRegistry metrics = new MetricRegistry();
    private RedisConnections redis;
    private QueueConnection connection;
    private Tallies tallies;

    @BeforeEach
    void connect() {
        redis = new RedisConnections(REDIS.endpoint().uri(), Duration.ofSeconds(1));
        connection = redis.connect(PREFIX);
        connection.sync().flushall();
        tallies = new Tallies(connection, PREFIX, "p1", metrics, clock);
    }

    @AfterEach
    void close() {
        redis.close();
    }

    @Test
    void eachCountReachesItsMinuteAsThisProcesssTotalAndRepeatedFlushesAddNothing() {
        tallies.add(Tallies.Kind.ACCEPTED, "sim", "acme", 3);
        tallies.add(Tallies.Kind.ACCEPTED, "sim", "acme", 2);
        tallies.add(Tallies.Kind.PUBLISHED, null, null, 5);
        tallies.flush();
        now.addAndGet(60_000);
        tallies.add(Tallies.Kind.SENT, "smsc", "globex", 1);
        tallies.flush();
        tallies.flush();

        assertThat(counts(MINUTE))
                .containsOnly(Map.entry("ACCEPTED|sim|acme|p1", "5"), Map.entry("PUBLISHED|-|-|p1", "5"));
        assertThat(counts(MINUTE + 1)).containsOnly(Map.entry("SENT|smsc|globex|p1", "1"));
        assertThat(connection.sync().ttl(Tallies.countsKey(PREFIX, MINUTE)))
                .isBetween(Tallies.KEEP_SECONDS - 60, Tallies.KEEP_SECONDS);
    }

    @Test
    void onlyStatusChangesCountAndEachWithItsMessagesGatewayAndTenant() {
        UUID id = UUID.randomUUID();
        Instant at = Instant.now();
        NewEvent claim = new NewEvent(id, 2, (short) 1, "w", at, new Claimed(1, "w", at));
        NewEvent dead = new NewEvent(
                id, 3, (short) 1, "w", at, new Dead(4, "limit"), null, null, "acme", MessageStatus.DEAD, "sim");
        NewEvent sending = new NewEvent(
                id, 4, (short) 1, "w", at, new Claimed(2, "w", at), null, null, "acme", MessageStatus.SENDING, "sim");
        tallies.committed(List.of(claim, dead, sending));
        tallies.flush();

        assertThat(counts(MINUTE)).containsOnly(Map.entry("DEAD|sim|acme|p1", "1"));
    }

    @Test
    void aFlushRedisRefusesKeepsItsCountsForTheNext() {
        tallies.add(Tallies.Kind.DELIVERED, "sim", "acme", 7);
        REDIS.process().pause();
        try {
            tallies.flush();
            assertThat(metrics.counter("tallies.flush.failures").getCount()).isEqualTo(1);
        } finally {
            REDIS.process().resume();
        }
        tallies.add(Tallies.Kind.DELIVERED, "sim", "acme", 1);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            tallies.flush();
            assertThat(counts(MINUTE)).containsEntry("DELIVERED|sim|acme|p1", "8");
        });
        assertThat(metrics.counter("tallies.dropped").getCount()).isZero();
    }

    @Test
    void countsKeptPastTenMinutesAreDroppedAndCounted() {
        tallies.add(Tallies.Kind.UNKNOWN, "sim", "acme", 4);
        now.addAndGet((Tallies.MAX_PENDING_MINUTES + 1) * 60_000L);
        tallies.add(Tallies.Kind.SENT, "sim", "acme", 1);
        tallies.flush();

        assertThat(metrics.counter("tallies.dropped").getCount()).isEqualTo(4);
        assertThat(counts(MINUTE)).isEmpty();
        assertThat(counts(MINUTE + Tallies.MAX_PENDING_MINUTES + 1)).containsOnly(Map.entry("SENT|sim|acme|p1", "1"));
    }

    private Map<String, String> counts(long minute) {
        return connection.sync().hgetall(Tallies.countsKey(PREFIX, minute));
    }
}
