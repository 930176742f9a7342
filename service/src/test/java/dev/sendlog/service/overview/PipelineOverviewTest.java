package dev.sendlog.service.overview;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.simulator.ReceiptMode;
import dev.sendlog.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code GET /v1/admin/overview} (issue 31), the console's pipeline view, against the real pipeline: a known load
 * shows as exactly that many accepted, sent and delivered in the last hour's per-minute counts, per gateway and per
 * tenant; the stages are all there with their counts now; the stage timings are filled in; a client key is refused.
 */
class PipelineOverviewTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness();

    @Test
    void aKnownLoadIsCountedOnceAtEveryStepPerGatewayAndPerTenant() {
        SERVICE.simulator()
                .updateConfig(SimulatorConfig.defaults().toBuilder()
                        .latencyMs(2)
                        .receiptMode(ReceiptMode.FINAL)
                        .undeliveredRate(0)
                        .build());
        JsonNode before = overview();
        int n = 40;
        List<String> ids = Messages.submit(SERVICE, n);
        for (String id : ids) {
            Messages.awaitStatus(SERVICE, id, "DELIVERED", WAIT);
        }
        await().atMost(WAIT).untilAsserted(() -> {
            JsonNode now = overview();
            assertThat(total(now, "DELIVERED") - total(before, "DELIVERED"))
                    .as("delivered")
                    .isEqualTo(n);
        });
        JsonNode after = overview();
        for (String kind : List.of("ACCEPTED", "PUBLISHED", "SENT", "DELIVERED")) {
            assertThat(total(after, kind) - total(before, kind)).as(kind).isEqualTo(n);
        }
        assertThat(total(after, "DEAD") + total(after, "UNKNOWN") + total(after, "UNDELIVERED"))
                .as("no failure")
                .isZero();
        assertThat(after.at("/gateways/sim/DELIVERED").asLong())
                .as("per gateway")
                .isEqualTo(n);
        assertThat(after.at("/tenants/acme/ACCEPTED").asLong()).as("per tenant").isEqualTo(n);
        assertThat(after.at("/tenants/acme/SENT").asLong()).isEqualTo(n);
        assertThat(after.get("minuteStarts")).hasSize(60);
        assertThat(after.get("throughput").get("SENT")).hasSize(60);

        List<String> stages = after.get("stages").findValuesAsText("name");
        assertThat(stages)
                .containsExactly(
                        "accepted", "send-stream", "at-provider", "awaiting-receipt", "callbacks", "webhooks-owed");
        for (JsonNode stage : after.get("stages")) {
            assertThat(stage.get("now").isNull())
                    .as("%s has a count now", stage)
                    .isFalse();
        }
        assertThat(after.at("/stages/3/now").asLong())
                .as("nothing waits for a receipt once all are delivered")
                .isZero();
        boolean providerTimed = false;
        for (JsonNode v : after.at("/latencyP99/send.provider")) {
            providerTimed |= !v.isNull() && v.asDouble() > 0;
        }
        assertThat(providerTimed).as("the provider call's p99 per minute").isTrue();
        assertThat(after.get("health").findValuesAsText("name")).contains("database", "pollers", "redis-send");
        assertThat(after.get("alarms").fieldNames()).toIterable().isNotEmpty();
    }

    @Test
    void aClientKeyMayNotReadIt() {
        ApiResponse r = SERVICE.api().get("/v1/admin/overview", "client-a");
        assertThat(r.status()).isEqualTo(403);
        assertThat(r.header("Content-Type")).contains("application/problem+json");
    }

    private static JsonNode overview() {
        ApiResponse r = SERVICE.api().get("/v1/admin/overview", "support-1");
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        return r.json();
    }

    private static long total(JsonNode overview, String kind) {
        long sum = 0;
        for (JsonNode v : overview.get("throughput").get(kind)) {
            sum += v.asLong();
        }
        return sum;
    }
}
