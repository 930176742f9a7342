package dev.sendlog.service.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The whole pipeline, for real: API, PostgreSQL, poller, Redis stream, send workers, the simulator over HTTP.
 * 10,000 messages: every one SENT once, charged once, seen once by the provider, and nothing left in Redis. The
 * provider's ids wrap at 100, so each id is reused a hundred times: nothing is unique on a provider id alone, and no
 * write fails because of it (a failed write would have caused a second submit).
 */
class DispatchEndToEndTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness().simulator(SimulatorConfig.defaults().toBuilder()
            .latencyMs(5).receiptMode(ReceiptMode.NONE).idWrapModulus(100).build());

    @Test
    void tenThousandMessagesAreSentAndChargedOnceAndLeaveNothingInRedis() {
        int n = 10_000;
        List<String> ids = Messages.submit(SERVICE, n);
        assertThat(ids).doesNotHaveDuplicates().hasSize(n);

        Messages.awaitCount(SERVICE, "SELECT count(*) FROM message_status WHERE status = 'SENT'", n, Duration.ofMinutes(3));
        assertThat(Messages.providerAccepted(SERVICE)).isEqualTo(n);
        assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM ledger")).isEqualTo(n);
        assertThat(Sql.count(SERVICE.dataSource(),
                "SELECT count(*) FROM (SELECT message_id FROM message_events WHERE type = 'PROVIDER_ACCEPTED' "
                        + "GROUP BY message_id HAVING count(*) > 1) t")).isZero();
        assertThat(SERVICE.simulator().stats().uniqueKeys()).isEqualTo(n);
        assertThat(SERVICE.simulator().stats().duplicateSubmits()).isZero();
        assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(DISTINCT provider_id) FROM ledger")).isEqualTo(100);

        try (RedisClient client = SERVICE.redisClient(); StatefulRedisConnection<String, String> redis = client.connect()) {
            String stream = SERVICE.redisPrefix() + "{send}:stream";
            assertThat(redis.sync().xlen(stream)).isZero();
            assertThat(redis.sync().xpending(stream, "send-workers").getCount()).isZero();
            List<String> keys = redis.sync().scan(ScanArgs.Builder.matches(SERVICE.redisPrefix() + "*").limit(1000)).getKeys();
            // The two job streams and one health-probe key per process and store; no key per message.
            String callbacks = SERVICE.redisPrefix() + "{callback}:stream";
            assertThat(redis.sync().xlen(callbacks)).isZero();
            assertThat(keys).allMatch(k -> k.equals(stream) || k.equals(callbacks)
                    || k.startsWith(SERVICE.redisPrefix() + "health:") || k.startsWith(SERVICE.redisPrefix() + "{callback}:health:"));
        }
    }
}
