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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The high lane's poller is woken by the accept of a high message (LISTEN/NOTIFY), not by its own reads: with its
 * reads a minute apart, a high message is still on its stream within seconds of its 202.
 */
class HighWorkSignalTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
            "components",
            "API,POLLER",
            "pipeline.highIdlePollMs",
            "60000",
            // No redrives while the jobs wait on the stream (no worker takes them here).
            "pipeline.confirmTimeout",
            "10m");

    @Test
    void aHighMessageWakesItsPollerAtCommit() throws Exception {
        await().atMost(Duration.ofSeconds(30)).until(() -> SERVICE.gauge("poller.high.listening") == 1);
        long wokenBefore = SERVICE.counter("poller.high.woken");
        RedisClient client = SERVICE.redisClient();
        try (StatefulRedisConnection<String, String> redis = SERVICE.redisConnection(client)) {
            String highKey = StreamKeys.sendHigh(SERVICE.redisPrefix());
            for (int i = 1; i <= 3; i++) {
                ApiResponse r = SERVICE.api()
                        .post(
                                "/v1/messages",
                                "client-a",
                                "{\"to\":\"" + Messages.recipient() + "\",\"body\":\"wake " + i
                                        + "\",\"priority\":\"high\"}");
                assertThat(r.status()).isEqualTo(202);
                long published = i;
                // Far below the minute between the poller's own reads: only the notification can have woken it.
                await().atMost(Duration.ofSeconds(15)).until(() -> redis.sync().xlen(highKey) == published);
            }
            assertThat(SERVICE.counter("poller.high.woken") - wokenBefore).isGreaterThanOrEqualTo(3);
        } finally {
            client.shutdown();
        }
    }
}
