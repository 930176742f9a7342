package dev.sendlog.service.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sendlog.service.queue.StreamKeys;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * High priority work has shards, a stream and workers of its own (issue 26): a normal backlog that holds the normal
 * stream at its bound, with no worker taking it, leaves high messages free to be published and sent.
 */
class PriorityLaneTest {
    private static final int BOUND = 200;
    private static final int BACKLOG = 1200;
    private static final int HIGH = 3;
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
    void highMessagesArePublishedPastAFullNormalStreamAndSentByTheirOwnWorkers() throws Exception {
        List<String> backlog = Messages.submit(SERVICE, BACKLOG);
        RedisClient client = SERVICE.redisClient();
        try (StatefulRedisConnection<String, String> redis = SERVICE.redisConnection(client)) {
            String normalKey = StreamKeys.send(SERVICE.redisPrefix());
            String highKey = StreamKeys.sendHigh(SERVICE.redisPrefix());
            await().atMost(WAIT)
                    .until(() -> SERVICE.admin()
                                    .get("/metrics", null)
                                    .json()
                                    .path("counters")
                                    .path("poller.backpressure.waits")
                                    .path("count")
                                    .asLong()
                            >= 1);
            long normalAtBound = redis.sync().xlen(normalKey);
            assertThat(normalAtBound)
                    .as("the normal stream stopped at its bound")
                    .isBetween((long) BOUND, BOUND + 500L);

            List<String> high = new ArrayList<>();
            for (int i = 0; i < HIGH; i++) {
                ApiResponse r = SERVICE.api()
                        .post(
                                "/v1/messages",
                                "client-a",
                                "{\"to\":\"" + Messages.recipient() + "\",\"body\":\"urgent " + i
                                        + "\",\"priority\":\"high\"}");
                assertThat(r.status()).isEqualTo(202);
                high.add(r.json().get("id").asText());
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> redis.sync().xlen(highKey) == HIGH);
            assertThat(redis.sync().xlen(normalKey))
                    .as("no normal work published meanwhile")
                    .isEqualTo(normalAtBound);
            for (String id : high) {
                assertThat(SERVICE.api()
                                .get("/v1/messages/" + id, "support-1")
                                .json()
                                .path("priority")
                                .asText())
                        .isEqualTo("high");
            }

            try (ServiceHarness.Instance workers = SERVICE.startAnother(null, "components", "SEND_WORKER")) {
                for (String id : high) {
                    Messages.awaitStatus(SERVICE, id, "SENT", WAIT);
                }
                await().atMost(WAIT).until(() -> redis.sync().xlen(highKey) == 0);
                await().atMost(WAIT).until(() -> Messages.providerAccepted(SERVICE) == BACKLOG + HIGH);
            }
            assertThat(Messages.charged(SERVICE, backlog)).isEqualTo(BACKLOG);
            assertThat(Messages.charged(SERVICE, high)).isEqualTo(HIGH);
        } finally {
            client.shutdown();
        }
    }
}
