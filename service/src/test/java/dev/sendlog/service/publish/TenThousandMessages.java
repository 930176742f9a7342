package dev.sendlog.service.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sendlog.events.EventType;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import dev.sendlog.simulator.ReceiptMode;
import dev.sendlog.simulator.SimulatorConfig;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The whole pipeline, for real (either feed; see the two subclasses): API, PostgreSQL, poller, Redis stream, send workers, the simulator over HTTP.
 * 10,000 messages: every one SENT once, charged once, seen once by the provider, and nothing left in Redis. The
 * provider's ids wrap at 100, so each id is reused a hundred times: nothing is unique on a provider id alone, and no
 * write fails because of it (a failed write would have caused a second submit).
 */
abstract class TenThousandMessages {
    /** The simulator both feeds run against: 5 ms, no receipts, provider ids wrapping at 100. */
    static SimulatorConfig simulator() {
        return SimulatorConfig.defaults().toBuilder()
                .latencyMs(5)
                .receiptMode(ReceiptMode.NONE)
                .idWrapModulus(100)
                .build();
    }

    abstract ServiceHarness service();

    @Test
    void tenThousandMessagesAreSentAndChargedOnceAndLeaveNothingInRedis() {
        ServiceHarness service = service();
        int n = 10_000;
        List<String> ids = Messages.submit(service, n);
        assertThat(ids).doesNotHaveDuplicates().hasSize(n);

        Messages.awaitCount(
                service,
                "SELECT count(DISTINCT message_id) FROM message_events WHERE type = "
                        + EventType.PROVIDER_ACCEPTED.code(),
                n,
                Duration.ofMinutes(3));
        assertThat(Messages.providerAccepted(service)).isEqualTo(n);
        assertThat(Sql.count(service.dataSource(), "SELECT count(*) FROM ledger"))
                .isEqualTo(n);
        assertThat(Sql.count(
                        service.dataSource(),
                        "SELECT count(*) FROM (SELECT message_id FROM message_events WHERE type = "
                                + EventType.PROVIDER_ACCEPTED.code() + " "
                                + "GROUP BY message_id HAVING count(*) > 1) t"))
                .isZero();
        assertThat(service.simulator().stats().uniqueKeys()).isEqualTo(n);
        assertThat(service.simulator().stats().duplicateSubmits()).isZero();
        assertThat(Sql.count(
                        service.dataSource(),
                        "SELECT count(DISTINCT provider_id) FROM message_events WHERE type = "
                                + EventType.PROVIDER_ACCEPTED.code()))
                .isEqualTo(100);

        try (RedisClient client = service.redisClient();
                StatefulRedisConnection<String, String> redis = client.connect()) {
            String stream = service.redisPrefix() + "{send}:stream";
            String high = service.redisPrefix() + "{send-high}:stream";
            String callbacks = service.redisPrefix() + "{callback}:stream";
            // Finished jobs are acknowledged together a moment after their outcome is recorded.
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(redis.sync().xlen(stream)).isZero();
                assertThat(redis.sync().xpending(stream, "send-workers").getCount())
                        .isZero();
                assertThat(redis.sync().xlen(callbacks)).isZero();
            });
            List<String> keys = redis.sync()
                    .scan(ScanArgs.Builder.matches(service.redisPrefix() + "*").limit(1000))
                    .getKeys();
            // The job streams (both send lanes' and the callbacks'), one health-probe key per process and store, and
            // the pipeline view's per-minute hashes, each with its expiry; no key per message.
            String stats = service.redisPrefix() + "{stats}:";
            assertThat(keys)
                    .allMatch(k -> k.equals(stream)
                            || k.equals(high)
                            || k.equals(callbacks)
                            || k.startsWith(stats)
                            || k.startsWith(service.redisPrefix() + "health:")
                            || k.startsWith(service.redisPrefix() + "{callback}:health:")
                            || k.startsWith(service.redisPrefix() + "{send-high}:health:"));
            assertThat(keys.stream().filter(k -> k.startsWith(stats)))
                    .as("the pipeline view's minutes")
                    .isNotEmpty()
                    .allMatch(k -> redis.sync().ttl(k) > 0);
        }
    }
}
