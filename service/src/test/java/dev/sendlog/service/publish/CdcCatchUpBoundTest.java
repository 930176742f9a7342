package dev.sendlog.service.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sendlog.service.queue.StreamKeys;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 24, item 19: a new slot's catch-up publishes the backlog committed before the slot existed within the send
 * stream's bound ({@code maxStreamEntries}), as the polling feed and the slot's stream do, instead of all at once.
 */
class CdcCatchUpBoundTest {
    private static final int BOUND = 300;
    private static final int BACKLOG = 2000;
    private static final Duration WAIT = Duration.ofSeconds(120);

    /** The API alone first: nothing reads a slot, so the backlog is committed before the slot exists. */
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
                    "components",
                    "API",
                    "pipeline.maxStreamEntries",
                    Integer.toString(BOUND),
                    // No redrives while the jobs wait on the stream: what is on it is the catch-up's alone.
                    "pipeline.confirmTimeout",
                    "10m")
            .cdcFeed();

    @Test
    void theCatchUpFillsTheSendStreamUpToItsBoundAndPublishesTheRestAsWorkersTakeIt() throws Exception {
        List<String> backlog = Messages.submit(SERVICE, BACKLOG);
        RedisClient client = SERVICE.redisClient();
        try (StatefulRedisConnection<String, String> redis = SERVICE.redisConnection(client);
                ServiceHarness.Instance poller = SERVICE.startAnother(null, "components", "POLLER")) {
            String key = StreamKeys.send(SERVICE.redisPrefix());
            // No workers yet: the catch-up stops at the bound and waits (before the fix it published all 2,000).
            await().atMost(WAIT)
                    .pollInterval(Duration.ofMillis(20))
                    .failFast(
                            "the send stream past its bound", () -> redis.sync().xlen(key) > BOUND)
                    .until(() -> redis.sync().xlen(key) == BOUND);
            assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM feed_slots WHERE caught_up_at IS NULL"))
                    .as("the catch-up is waiting, not done")
                    .isEqualTo(1);

            try (ServiceHarness.Instance workers = SERVICE.startAnother(null, "components", "SEND_WORKER")) {
                await().atMost(WAIT)
                        .pollInterval(Duration.ofMillis(20))
                        .failFast(
                                "the send stream past its bound",
                                () -> redis.sync().xlen(key) > BOUND)
                        .until(() -> Messages.providerAccepted(SERVICE) == BACKLOG);
            }
            assertThat(Sql.count(
                            SERVICE.dataSource(), "SELECT count(*) FROM feed_slots WHERE caught_up_at IS NOT NULL"))
                    .as("caught up")
                    .isEqualTo(1);
            assertThat(Sql.count(SERVICE.dataSource(), """
                    SELECT count(*) FROM (SELECT u.message_id FROM publications p CROSS JOIN unnest(p.message_ids) AS u(message_id)
                                          GROUP BY 1 HAVING count(*) > 1) t"""))
                    .as("published twice")
                    .isZero();
            assertThat(Messages.charged(SERVICE, backlog)).isEqualTo(BACKLOG);
        } finally {
            client.shutdown();
        }
    }
}
