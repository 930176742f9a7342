package dev.sendlog.service.resources;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Idempotency keys live for their TTL (24 h by default), then are purged in small batches. */
class IdempotencyExpiryTest {
    @RegisterExtension
    static final ServiceHarness SERVICE =
            new ServiceHarness("components", "API,MAINTENANCE", "accept.idempotencyPurgeBatch", "7");

    private static ApiResponse submit(String key, String body) {
        return SERVICE.api()
                .post(
                        "/v1/messages",
                        "client-a",
                        "{\"to\":\"+4915100000019\",\"body\":\"" + body + "\"}",
                        "Idempotency-Key",
                        key);
    }

    @Test
    void expiredKeysArePurgedInBatchesAndLiveOnesStay() {
        for (int i = 0; i < 20; i++) {
            assertThat(submit("old-" + i, "b").status()).isEqualTo(202);
        }
        SERVICE.clock().advance(Duration.ofHours(25));
        assertThat(submit("fresh", "b").status()).isEqualTo(202);

        long expired = Sql.count(
                SERVICE.dataSource(),
                "SELECT count(*) FROM idempotency_keys WHERE expires_at <= '" + SERVICE.now() + "'");
        assertThat(expired).isGreaterThanOrEqualTo(20);
        ApiResponse purge = SERVICE.admin().post("/tasks/purge-idempotency-keys", "admin-1", "");
        assertThat(purge.status()).isEqualTo(200);
        assertThat(purge.raw().trim()).isEqualTo(Long.toString(expired));
        assertThat(Sql.count(
                        SERVICE.dataSource(), "SELECT count(*) FROM idempotency_keys WHERE client_key LIKE 'old-%'"))
                .isZero();
        assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM idempotency_keys WHERE client_key = 'fresh'"))
                .isEqualTo(1);
        // The messages themselves are never touched by the purge.
        assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM messages WHERE idempotency_key LIKE 'old-%'"))
                .isEqualTo(20);
    }

    @Test
    void anExpiredKeyNotYetPurgedIsTakenByTheNextRequest() {
        ApiResponse first = submit("reused", "first");
        SERVICE.clock().advance(Duration.ofHours(25));
        ApiResponse second = submit("reused", "second, a day later");
        assertThat(second.status()).isEqualTo(202);
        assertThat(second.header("Idempotent-Replayed")).isNull();
        assertThat(second.json().get("id")).isNotEqualTo(first.json().get("id"));
        ApiResponse replay = submit("reused", "second, a day later");
        assertThat(replay.json().get("id")).isEqualTo(second.json().get("id"));
    }
}
