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
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A poller that has found nothing for a second reads its tail every {@code quietPollMs}, not every {@code idlePollMs}:
 * an idle process does not query its database fifty times a second. Work accepted during a quiet spell is still
 * published.
 */
class QuietPollingTest {
    private static final long QUIET_POLL_MS = 500;

    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
            "components",
            "API,POLLER",
            "pipeline.idlePollMs",
            "20",
            "pipeline.quietPollMs",
            Long.toString(QUIET_POLL_MS),
            // The high lane's poller reads on its own only once a minute: the reads counted below are the normal
            // lane's.
            "pipeline.highIdlePollMs",
            "60000",
            // No redrives while the jobs wait on the stream (no worker takes them here).
            "pipeline.confirmTimeout",
            "10m");

    @Test
    void anIdlePollerReadsAtTheQuietCadenceAndStillPublishesWhatComes() throws Exception {
        await().atMost(Duration.ofSeconds(30)).until(() -> SERVICE.gauge("poller.high.listening") == 1);
        // The pollers without notifications: the normal lane's and any tenant lane's.
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            Map<String, Long> quiet = quietGauges();
            return quiet.containsKey("poller.normal.quiet")
                    && quiet.values().stream().allMatch(v -> v == 1);
        });
        int pollers = quietGauges().size();

        // 2P + 1 reads by P quiet pollers include three by one of them, two quiet waits apart; at idlePollMs they
        // would take a few tens of milliseconds.
        long readsBefore = tailReads();
        long start = System.nanoTime();
        await().atMost(Duration.ofSeconds(30)).until(() -> tailReads() >= readsBefore + 2L * pollers + 1);
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(elapsedMs)
                .as("%d reads of the tail by %d quiet pollers", 2 * pollers + 1, pollers)
                .isGreaterThanOrEqualTo(2 * QUIET_POLL_MS - 50);

        RedisClient client = SERVICE.redisClient();
        try (StatefulRedisConnection<String, String> redis = SERVICE.redisConnection(client)) {
            String normal = StreamKeys.send(SERVICE.redisPrefix());
            ApiResponse r = SERVICE.api()
                    .post("/v1/messages", "client-a", "{\"to\":\"" + Messages.recipient() + "\",\"body\":\"quiet\"}");
            assertThat(r.status()).isEqualTo(202);
            await().atMost(Duration.ofSeconds(15)).until(() -> redis.sync().xlen(normal) == 1);
        } finally {
            client.shutdown();
        }
    }

    /** The quiet gauges of the pollers that have one to show (the high lane's, woken by notifications, is left out). */
    private static Map<String, Long> quietGauges() {
        Map<String, Long> quiet = new TreeMap<>();
        SERVICE.admin().get("/metrics", null).json().path("gauges").properties().forEach(e -> {
            if (e.getKey().startsWith("poller.")
                    && e.getKey().endsWith(".quiet")
                    && !e.getKey().equals("poller.high.quiet")) {
                quiet.put(e.getKey(), e.getValue().path("value").asLong());
            }
        });
        return quiet;
    }

    /** Reads of the tail by this process's pollers (the timer around each read, empty ones included). */
    private static long tailReads() {
        return SERVICE.timerCount("poller.claim");
    }
}
