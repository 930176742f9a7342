package dev.sendlog.service.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.service.queue.StreamKeys;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The polling feed stops at the send stream's bound, and while the stream stays full it asks the stream, not the log:
 * before, each wait read a whole page of the tail only to drop it (at C=16 in scripts/bench, 4 of every 5 tail rows the
 * poller read). The high lane's shards are still read meanwhile (see PriorityLaneTest), so what must not happen is a
 * normal page read to be dropped.
 */
class PollerBackpressureTest {
    private static final int BOUND = 200;
    private static final int BACKLOG = 1200;
    private static final Duration WAIT = Duration.ofSeconds(120);

    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
            "components",
            "API,POLLER",
            "pipeline.maxStreamEntries",
            Integer.toString(BOUND),
            // No redrives while the jobs wait on the stream.
            "pipeline.confirmTimeout",
            "10m");

    @Test
    void whileTheStreamIsFullThePollerWaitsWithoutReadingTheTailAndPublishesTheRestOnceWorkersTakeIt()
            throws Exception {
        List<String> backlog = Messages.submit(SERVICE, BACKLOG);
        RedisClient client = SERVICE.redisClient();
        try (StatefulRedisConnection<String, String> redis = SERVICE.redisConnection(client)) {
            String key = StreamKeys.send(SERVICE.redisPrefix());
            await().atMost(WAIT).until(() -> counter("poller.backpressure.waits") >= 1);
            long stoppedAt = redis.sync().xlen(key);
            assertThat(stoppedAt)
                    .as("published past the bound by at most one page")
                    .isBetween((long) BOUND, BOUND + 500L);
            long droppedBefore = counter("poller.rows.read.for.a.full.stream");
            long waitsBefore = counter("poller.backpressure.waits");
            await().atMost(WAIT).until(() -> counter("poller.backpressure.waits") >= waitsBefore + 5);
            assertThat(counter("poller.rows.read.for.a.full.stream") - droppedBefore)
                    .as("normal rows read only to be dropped during five waits on a full stream")
                    .isZero();
            assertThat(redis.sync().xlen(key))
                    .as("nothing published while full")
                    .isEqualTo(stoppedAt);

            try (ServiceHarness.Instance workers = SERVICE.startAnother(null, "components", "SEND_WORKER")) {
                await().atMost(WAIT).until(() -> Messages.providerAccepted(SERVICE) == BACKLOG);
            }
            assertThat(Messages.charged(SERVICE, backlog)).isEqualTo(BACKLOG);
        } finally {
            client.shutdown();
        }
    }

    private static long counter(String name) {
        return metrics().path("counters").path(name).path("count").asLong();
    }

    private static JsonNode metrics() {
        return SERVICE.admin().get("/metrics", null).json();
    }
}
