package dev.sendlog.service.resources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.service.receipts.CallbackSignature;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The callback intake bound (receipts.maxConcurrentIntake, here 1): a callback past it waits up to
 * receipts.intakeWait for a place and is stored when one frees in time; one that waits in vain, or finds as many
 * waiting as can be stored, is refused with 503 and Retry-After, counted, and stores nothing. The store is held up by
 * locking the inbox table, so the one place stays taken for exactly as long as the test says.
 */
class CallbackIntakeBoundTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
            "components", "API,MAINTENANCE", "receipts.maxConcurrentIntake", "1", "receipts.intakeWait", "3s");

    @Test
    void aCallbackPastTheBoundWaitsForAPlaceAndIsStoredWhenOneFrees() throws Exception {
        long busyBefore = counter("callbacks.intake.busy");
        CompletableFuture<ApiResponse> first;
        CompletableFuture<ApiResponse> second;
        try (Connection lock = Sql.lockExclusively(SERVICE.dataSource(), "callback_inbox")) {
            first = takeTheOnlyPlace("p-bound-1");
            // The second waits for a place.
            second = CompletableFuture.supplyAsync(() -> callback("p-bound-2"));
            await().atMost(Duration.ofSeconds(5)).until(() -> gauge("callbacks.intake.waiting") == 1);
            // As many wait as can be stored (one): a third is refused at once, while the second still waits.
            ApiResponse third =
                    CompletableFuture.supplyAsync(() -> callback("p-bound-3")).get(15, TimeUnit.SECONDS);
            assertRefused(third);
            assertThat(second).isNotDone();
            assertThat(counter("callbacks.intake.busy")).isEqualTo(busyBefore + 1);
            lock.commit();
        }
        // The place frees while the second waits: both are stored.
        assertThat(first.get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
        assertThat(second.get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
        assertThat(gauge("callbacks.intake.waiting")).isZero();
        assertThat(stored("p-bound-1")).isEqualTo(1);
        assertThat(stored("p-bound-2")).isEqualTo(1);
        assertThat(stored("p-bound-3")).isZero();
        assertThat(counter("callbacks.intake.busy")).isEqualTo(busyBefore + 1);
    }

    @Test
    void aCallbackIsRefusedOnlyAfterWaitingTheWholeIntakeWaitInVain() throws Exception {
        long busyBefore = counter("callbacks.intake.busy");
        CompletableFuture<ApiResponse> first;
        try (Connection lock = Sql.lockExclusively(SERVICE.dataSource(), "callback_inbox")) {
            first = takeTheOnlyPlace("p-wait-1");
            // No place frees within intakeWait: refused and told to come back. (Without the bound it would wait for
            // the lock, and time out here.)
            long started = System.nanoTime();
            ApiResponse second =
                    CompletableFuture.supplyAsync(() -> callback("p-wait-2")).get(15, TimeUnit.SECONDS);
            assertRefused(second);
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofSeconds(3));
            assertThat(first).isNotDone();
            lock.commit();
        }
        assertThat(first.get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
        assertThat(stored("p-wait-1")).isEqualTo(1);
        assertThat(stored("p-wait-2")).isZero();
        assertThat(counter("callbacks.intake.busy")).isEqualTo(busyBefore + 1);
    }

    /** Sends a callback that takes the only place and waits, inside its store, for the inbox lock. */
    private static CompletableFuture<ApiResponse> takeTheOnlyPlace(String providerId) {
        CompletableFuture<ApiResponse> answer = CompletableFuture.supplyAsync(() -> callback(providerId));
        await().atMost(Duration.ofSeconds(20))
                .until(() -> Sql.count(
                                SERVICE.dataSource(),
                                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                                        + " AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO callback_inbox%'")
                        == 1);
        return answer;
    }

    private static void assertRefused(ApiResponse r) {
        assertThat(r.status()).isEqualTo(503);
        assertThat(r.contentType()).startsWith("application/problem+json");
        assertThat(r.header("Retry-After")).isEqualTo("1");
    }

    private static ApiResponse callback(String providerId) {
        byte[] body = ("{\"id\":\"" + providerId + "\",\"stat\":\"DELIVRD\",\"done date\":\"2611300931\"}")
                .getBytes(StandardCharsets.UTF_8);
        return SERVICE.api()
                .postBytes(
                        "/v1/callbacks/sim",
                        null,
                        "application/json",
                        body,
                        "X-Signature",
                        CallbackSignature.sign("sim-secret", body));
    }

    private static long stored(String providerId) {
        return Sql.count(
                SERVICE.dataSource(),
                "SELECT count(*) FROM callback_inbox WHERE convert_from(body, 'UTF8') LIKE '%" + providerId + "%'");
    }

    private static long counter(String name) {
        return metrics().path("counters").path(name).path("count").asLong();
    }

    private static long gauge(String name) {
        return metrics().path("gauges").path(name).path("value").asLong();
    }

    private static JsonNode metrics() {
        return SERVICE.admin().get("/metrics", null).json();
    }
}
