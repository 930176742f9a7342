package dev.sendlog.service.send;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.simulator.ReceiptMode;
import dev.sendlog.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The send path's use per tenant and per gateway (issue 29's metrics): each tenant's calls in flight (its share of the
 * call bound) while a slow provider holds them, and each tenant's and gateway's calls metered once per call.
 */
class SendSharesTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness();

    @Test
    void eachTenantsCallsInFlightAndEachCallPerTenantAndGatewayAreInTheMetrics() {
        SERVICE.simulator()
                .updateConfig(SimulatorConfig.defaults().toBuilder()
                        .latencyMs(3_000)
                        .receiptMode(ReceiptMode.NONE)
                        .build());
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            String key = i < 3 ? "client-a" : "client-b";
            ApiResponse r = SERVICE.api()
                    .post("/v1/messages", key, "{\"to\":\"" + Messages.recipient() + "\",\"body\":\"share\"}");
            assertThat(r.status()).as(r.raw()).isEqualTo(202);
            ids.add(r.json().get("id").asText());
        }
        // All five at the provider at once (it answers after 3 s): acme holds three of the calls, globex two.
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> inFlight(metrics(), "acme") == 3 && inFlight(metrics(), "globex") == 2);
        JsonNode during = metrics();
        assertThat(during.path("gauges")
                        .path("send.provider.bound")
                        .path("value")
                        .asInt())
                .isPositive();

        for (String id : ids) {
            Messages.awaitStatus(SERVICE, id, "SENT", Duration.ofSeconds(30));
        }
        await().atMost(Duration.ofSeconds(10))
                .until(() -> inFlight(metrics(), "acme") == 0 && inFlight(metrics(), "globex") == 0);
        JsonNode after = metrics();
        assertThat(after.path("meters")
                        .path("tenant.acme.send.calls")
                        .path("count")
                        .asLong())
                .isEqualTo(3);
        assertThat(after.path("meters")
                        .path("tenant.globex.send.calls")
                        .path("count")
                        .asLong())
                .isEqualTo(2);
        assertThat(after.path("meters")
                        .path("gateway.sim.send.calls")
                        .path("count")
                        .asLong())
                .isEqualTo(5);
        assertThat(SERVICE.healthMessage("gateways")).contains("send calls");
    }

    private static JsonNode metrics() {
        return SERVICE.admin().get("/metrics", null).json();
    }

    private static long inFlight(JsonNode metrics, String tenant) {
        return metrics.path("counters")
                .path("tenant." + tenant + ".calls.in.flight")
                .path("count")
                .asLong();
    }
}
