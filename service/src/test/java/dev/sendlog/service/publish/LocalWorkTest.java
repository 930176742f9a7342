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
 * In a process that runs the API beside its poller, the normal lane's poller is woken by the commit of an accept, not by
 * its own reads: with those a minute apart ({@code pipeline.localIdlePollMs}), a message is still on the send stream
 * within seconds of its 202.
 */
class LocalWorkTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
            "components",
            "API,POLLER",
            "pipeline.localIdlePollMs",
            "60000",
            // No redrives while the jobs wait on the stream (no worker takes them here).
            "pipeline.confirmTimeout",
            "10m");

    @Test
    void anAcceptWakesThePollerOfItsProcessAtCommit() throws Exception {
        await().atMost(Duration.ofSeconds(30)).until(() -> SERVICE.gauge("poller.shards.owned") > 0);
        long wokenBefore = SERVICE.counter("poller.local.woken");
        RedisClient client = SERVICE.redisClient();
        try (StatefulRedisConnection<String, String> redis = SERVICE.redisConnection(client)) {
            String normalKey = StreamKeys.send(SERVICE.redisPrefix());
            for (int i = 1; i <= 3; i++) {
                ApiResponse r = SERVICE.api()
                        .post(
                                "/v1/messages",
                                "client-a",
                                "{\"to\":\"" + Messages.recipient() + "\",\"body\":\"wake " + i + "\"}");
                assertThat(r.status()).isEqualTo(202);
                long published = i;
                // Far below the minute between the poller's own reads: only the accept's wake can have started the
                // read.
                await().atMost(Duration.ofSeconds(15)).until(() -> redis.sync().xlen(normalKey) == published);
            }
            assertThat(SERVICE.counter("poller.local.woken") - wokenBefore).isGreaterThanOrEqualTo(3);
        } finally {
            client.shutdown();
        }
    }
}
