package dev.sendlog.service.health;

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
 * Messages becoming UNKNOWN faster than the limit raise the {@code unknown} alarm and leave the node healthy (issue 24
 * item 4: receipts that stop arriving should page someone, not take every node out of service).
 */
class UnknownAlarmTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
                    "alarms.maxUnknownPerMinute", "1", "pipeline.reconcileWindow", "1h")
            .simulator(SimulatorConfig.defaults().toBuilder()
                    .latencyMs(5)
                    .receiptMode(ReceiptMode.INTERMEDIATE_ONLY)
                    .build());

    @Test
    void messagesBecomingUnknownFasterThanTheLimitRaiseTheAlarmButLeaveTheNodeHealthy() {
        List<String> ids = Messages.submit(SERVICE, 3);
        for (String id : ids) {
            Messages.awaitStatus(SERVICE, id, "IN_TRANSIT", Duration.ofSeconds(30));
        }
        assertThat(alarm().get("raised").asBoolean()).as("nothing unknown yet").isFalse();
        // No final receipt comes: past the reconciliation window the timers call each UNKNOWN.
        SERVICE.clock().advance(Duration.ofMinutes(61));
        for (String id : ids) {
            Messages.awaitStatus(SERVICE, id, "UNKNOWN", Duration.ofSeconds(30));
        }
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(
                        () -> assertThat(alarm().get("raised").asBoolean()).isTrue());
        assertThat(alarm().get("lastMinute").asLong()).isEqualTo(3);
        assertThat(alarm().get("limit").asInt()).isEqualTo(1);
        assertThat(SERVICE.admin()
                        .get("/metrics", null)
                        .json()
                        .path("gauges")
                        .path("alarms.unknown.raised")
                        .path("value")
                        .asInt())
                .isEqualTo(1);
        assertThat(SERVICE.healthy("failures"))
                .as("an alarm, not the node's health")
                .isTrue();

        // A minute later by the service's clock with nothing new, the alarm is down again.
        SERVICE.clock().advance(Duration.ofSeconds(61));
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(
                        () -> assertThat(alarm().get("raised").asBoolean()).isFalse());
    }

    private static JsonNode alarm() {
        ApiResponse r = SERVICE.admin().get("/alarms", null);
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        return r.json().get("alarms").get("unknown");
    }
}
