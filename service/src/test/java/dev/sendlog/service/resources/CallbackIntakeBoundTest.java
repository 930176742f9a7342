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
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The callback intake bound (receipts.maxConcurrentIntake, here 1): a callback past it waits up to
 * receipts.intakeWait for a place and is stored when one frees in time; only one that waits in vain is refused with
 * 503 and Retry-After, counted, and stored nothing. The store is held up by locking the inbox table, so the one place
 * stays taken for exactly as long as the test says.
 */
class CallbackIntakeBoundTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness("components", "API,MAINTENANCE",
            "receipts.maxConcurrentIntake", "1", "receipts.intakeWait", "3s");

    @Test
    void aCallbackPastTheBoundWaitsForAPlaceAndIsRefusedOnlyWhenNoneFreesInTime() throws Exception {
        long busyBefore = counter("callbacks.intake.busy");
        CompletableFuture<ApiResponse> first;
        CompletableFuture<ApiResponse> third;
        try (Connection lock = SERVICE.dataSource().getConnection(); Statement st = lock.createStatement()) {
            lock.setAutoCommit(false);
            st.execute("LOCK TABLE callback_inbox IN EXCLUSIVE MODE");

            // The first takes the only place, and its insert waits for the lock.
            first = CompletableFuture.supplyAsync(() -> callback("p-bound-1"));
            await().atMost(Duration.ofSeconds(20)).until(() -> Sql.count(SERVICE.dataSource(),
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                            + " AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO callback_inbox%'") == 1);

            // The second waits the whole intakeWait: no place frees, so it is refused and told to come back.
            // (Without the bound it would wait for the lock, and time out here.)
            ApiResponse second = CompletableFuture.supplyAsync(() -> callback("p-bound-2")).get(15, TimeUnit.SECONDS);
            assertThat(second.status()).isEqualTo(503);
            assertThat(second.contentType()).startsWith("application/problem+json");
            assertThat(second.header("Retry-After")).isEqualTo("1");
            assertThat(counter("callbacks.intake.busy")).isEqualTo(busyBefore + 1);
            assertThat(first).isNotDone();

            // The third waits too, and this time the place frees while it waits.
            third = CompletableFuture.supplyAsync(() -> callback("p-bound-3"));
            await().atMost(Duration.ofSeconds(2)).until(() -> gauge("callbacks.intake.waiting") == 1);
            lock.commit();
        }
        assertThat(first.get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
        assertThat(third.get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
        assertThat(counter("callbacks.intake.busy")).isEqualTo(busyBefore + 1);
        assertThat(gauge("callbacks.intake.waiting")).isZero();
        for (String id : new String[] {"p-bound-1", "p-bound-3"}) {
            assertThat(stored(id)).as(id).isEqualTo(1);
        }
        assertThat(stored("p-bound-2")).isZero();
    }

    private static ApiResponse callback(String providerId) {
        byte[] body = ("{\"id\":\"" + providerId + "\",\"stat\":\"DELIVRD\",\"done date\":\"2611300931\"}")
                .getBytes(StandardCharsets.UTF_8);
        return SERVICE.api().postBytes("/v1/callbacks/sim", null, "application/json", body,
                "X-Signature", CallbackSignature.sign("sim-secret", body));
    }

    private static long stored(String providerId) {
        return Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM callback_inbox WHERE convert_from(body, 'UTF8') LIKE '%"
                + providerId + "%'");
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
