package dev.sendlog.service.scale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One store per job type: send and callback streams on two Redis instances, each with its own memory alarm. Filling the
 * callback store to its limit stops neither sends nor the API, and only the callback alarm fires; receipts resume by
 * themselves when it has room again.
 */
class StorePerJobTypeTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness()
            .privateRedis()
            .separateCallbackRedis(8L * 1024 * 1024)
            .simulator(dev.sendlog.simulator.SimulatorConfig.defaults().toBuilder()
                    .latencyMs(5)
                    .receiptMode(dev.sendlog.simulator.ReceiptMode.FINAL)
                    .intermediateReceipts(0)
                    .build());

    @Test
    void aFullCallbackStoreStopsNeitherSendsNorTheOtherAlarm() {
        try (RedisClient client = RedisClient.create(
                        SERVICE.callbackRedisServer().endpoint().uri());
                StatefulRedisConnection<String, String> callbacks = client.connect()) {
            String filler = "x".repeat(64 * 1024);
            int written = 0;
            try {
                for (; written < 10_000; written++) {
                    callbacks.sync().set("filler:" + written, filler);
                }
            } catch (RuntimeException full) {
                assertThat(full.getMessage()).contains("OOM");
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> !SERVICE.healthy("redis-callback"));
            assertThat(SERVICE.healthy("redis-send")).isTrue();

            List<String> ids = Messages.submit(SERVICE, 50);
            String in = "'" + String.join("','", ids) + "'";
            // Every message reaches the provider (SENT, or further if a receipt squeezed into the full store).
            Messages.awaitCount(
                    SERVICE,
                    "SELECT count(DISTINCT message_id) FROM message_events WHERE type = 4 " + "AND message_id IN (" + in
                            + ")",
                    ids.size(),
                    Duration.ofSeconds(60));
            assertThat(SERVICE.healthy("redis-send"))
                    .as("the send store's alarm is its own")
                    .isTrue();

            for (int i = 0; i < written; i++) {
                callbacks.sync().del("filler:" + i);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> SERVICE.healthy("redis-callback"));
            // Callbacks stored while their queue was full are queued again by the sweeper: receipts arrive after all.
            for (String id : ids) {
                Messages.awaitStatus(SERVICE, id, "DELIVERED", Duration.ofSeconds(60));
            }
        }
    }
}
