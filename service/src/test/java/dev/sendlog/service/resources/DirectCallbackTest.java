package dev.sendlog.service.resources;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.service.receipts.CallbackSignature;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The direct callback intake stores the ordinary signed receipt exactly as the Jersey resource does, and hands
 * everything else to the resource. An Accept header with a quality value sends the same callback through Jersey, so
 * the two answers can be compared; the meters prove which path answered. (The API alone: nothing processes the
 * inbox, so what is stored stays as stored.)
 */
class DirectCallbackTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness("components", "API,MAINTENANCE");

    private static final String[] THROUGH_JERSEY = {"Accept", "application/json;q=0.9"};

    @Test
    void aSignedCallbackIsStoredDirectlyAsTheResourceStoresIt() {
        String body = "{\"id\":\"p-direct\",\"stat\":\"DELIVRD\",\"done date\":\"2611300931\"}";
        long[] before = meters();
        ApiResponse direct = callback("sim", body, "sim-secret", "application/json");
        assertThat(meters()).containsExactly(before[0] + 1, before[1]);
        // Another body (the same one again would be answered with the row that holds it, not stored twice).
        String other = body.replace("}", ",\"errorCode\":\"0\"}");
        ApiResponse jersey = callback("sim", other, "sim-secret", "application/json", THROUGH_JERSEY);
        assertThat(meters()).containsExactly(before[0] + 1, before[1] + 1);
        // Not JSON at all, and no Content-Type: still stored, raw, to be parked by the worker.
        ApiResponse raw = callback("sim", "stat:DELIVRD id:p1 <not json>", "sim-secret", null);
        assertThat(meters()).containsExactly(before[0] + 2, before[1] + 1);

        for (ApiResponse r : List.of(direct, jersey, raw)) {
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.contentType()).isEqualTo("application/json");
            assertThat(r.json().size()).isEqualTo(1);
            long stored = r.json().get("stored").asLong();
            String expected = r == raw ? "stat:DELIVRD id:p1 <not json>" : r == jersey ? other : body;
            assertThat(Sql.count(
                            SERVICE.dataSource(),
                            "SELECT count(*) FROM callback_inbox WHERE id = " + stored
                                    + " AND gateway = 'sim' AND body = convert_to('" + expected + "', 'UTF8')"))
                    .isEqualTo(1);
        }
    }

    @Test
    void whatTheDirectPathDoesNotTakeReachesTheResource() {
        String body = "{\"id\":\"p1\",\"stat\":\"DELIVRD\"}";
        long rows = Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM callback_inbox");
        long rejected = counter("callbacks.signature.rejected");
        long[] before = meters();

        ApiResponse wrongSecret = callback("sim", body, "wrong-secret", "application/json");
        assertThat(wrongSecret.status()).isEqualTo(401);
        assertThat(wrongSecret.contentType()).startsWith("application/problem+json");
        ApiResponse unsigned = SERVICE.api()
                .postBytes("/v1/callbacks/sim", null, "application/json", body.getBytes(StandardCharsets.UTF_8));
        assertThat(unsigned.status()).isEqualTo(401);
        assertThat(callback("nope", body, "sim-secret", "application/json").status())
                .isEqualTo(404);

        assertThat(meters()).containsExactly(before[0], before[1] + 3);
        assertThat(counter("callbacks.signature.rejected")).isEqualTo(rejected + 2);
        assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM callback_inbox"))
                .isEqualTo(rows);
    }

    private static ApiResponse callback(
            String gateway, String body, String secret, String contentType, String... headers) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        String[] all = new String[headers.length + 2];
        all[0] = "X-Signature";
        all[1] = CallbackSignature.sign(secret, bytes);
        System.arraycopy(headers, 0, all, 2, headers.length);
        return SERVICE.api().postBytes("/v1/callbacks/" + gateway, null, contentType, bytes, all);
    }

    /** {callbacks.intake.direct, callbacks.intake.passed-on} counts. */
    private static long[] meters() {
        JsonNode meters = SERVICE.admin().get("/metrics", null).json().path("meters");
        return new long[] {
            meters.path("callbacks.intake.direct").path("count").asLong(),
            meters.path("callbacks.intake.passed-on").path("count").asLong()
        };
    }

    private static long counter(String name) {
        return SERVICE.admin()
                .get("/metrics", null)
                .json()
                .path("counters")
                .path(name)
                .path("count")
                .asLong();
    }
}
