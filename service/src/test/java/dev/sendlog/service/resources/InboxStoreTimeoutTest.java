package dev.sendlog.service.resources;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sendlog.service.receipts.CallbackSignature;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 24 item 20: a callback whose inbox commit does not finish within receipts.storeTimeout (30 s by default, here
 * 2 s) was answered 500 (or, when the write ran on the request's own thread, not at all while the lock was held); the
 * class promised 503 with Retry-After, so that the provider sends it again. Both intake paths (the direct filter and
 * the Jersey resource) answer so within about the timeout; the provider's next try is stored.
 */
class InboxStoreTimeoutTest {
    @RegisterExtension
    static final ServiceHarness SERVICE =
            new ServiceHarness("components", "API,MAINTENANCE", "receipts.storeTimeout", "2s");

    @Test
    void aStoreThatDoesNotCommitInTimeIsAnswered503WithRetryAfterOnBothPaths() throws Exception {
        long timeoutsBefore = SERVICE.admin()
                .get("/metrics", null)
                .json()
                .path("counters")
                .path("callbacks.store.unavailable")
                .path("count")
                .asLong();
        byte[] direct = body("p-timeout-direct");
        byte[] jersey = body("p-timeout-jersey");
        try (Connection lock = Sql.lockExclusively(SERVICE.dataSource(), "callback_inbox")) {
            for (ApiResponse r :
                    new ApiResponse[] {callback(direct, "application/json"), callback(jersey, "text/plain")}) {
                assertThat(r.status()).as(r.raw()).isEqualTo(503);
                assertThat(r.contentType()).startsWith("application/problem+json");
                assertThat(r.header("Retry-After")).isEqualTo("1");
                assertThat(r.json().get("status").asInt()).isEqualTo(503);
            }
            lock.commit();
        }
        assertThat(SERVICE.admin()
                        .get("/metrics", null)
                        .json()
                        .path("counters")
                        .path("callbacks.store.unavailable")
                        .path("count")
                        .asLong())
                .isEqualTo(timeoutsBefore + 2);
        // The provider sends them again: stored once each.
        for (byte[] body : new byte[][] {direct, jersey}) {
            ApiResponse again = callback(body, "application/json");
            assertThat(again.status()).as(again.raw()).isEqualTo(200);
        }
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT count(*) FROM callback_inbox WHERE convert_from(body, 'UTF8') LIKE "
                                + "'%p-timeout-%'"))
                .isEqualTo(2);
    }

    private static byte[] body(String providerId) {
        return ("{\"id\":\"" + providerId + "\",\"status\":\"DELIVRD\",\"timestamp\":\"2611300931\"}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static ApiResponse callback(byte[] body, String contentType) {
        long start = System.nanoTime();
        ApiResponse r = SERVICE.api()
                .postBytes(
                        "/v1/callbacks/sim",
                        null,
                        contentType,
                        body,
                        "X-Signature",
                        CallbackSignature.sign("sim-secret", body));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(15));
        return r;
    }
}
