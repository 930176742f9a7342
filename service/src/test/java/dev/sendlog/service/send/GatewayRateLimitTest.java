package dev.sendlog.service.send;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.simulator.ReceiptMode;
import dev.sendlog.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A gateway whose provider refuses traffic above its rate (429): the refusals lower the rate and use no attempt, and
 * every message goes out once, charged once (issue 29).
 */
class GatewayRateLimitTest {
    /** The provider takes 5 per second; the gateway is configured above that, so the provider's 429s must slow it. */
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
                    "gateways.sim.maxPerSecond", "20", "gateways.sim.throttledShare", "0.2")
            .simulator(SimulatorConfig.defaults().toBuilder()
                    .latencyMs(5)
                    .receiptMode(ReceiptMode.NONE)
                    .maxPerSecond(5)
                    .build());

    @Test
    void aProvidersTooManyRequestsSlowsTheGatewayAndUsesNoAttempt() {
        List<String> ids = Messages.submit(SERVICE, 40);
        Messages.awaitCount(SERVICE, "SELECT count(*) FROM ledger", 40, Duration.ofSeconds(90));

        assertThat(SERVICE.simulator().stats().throttled())
                .as("the provider refused some for its rate")
                .isPositive();
        for (String id : ids) {
            JsonNode message =
                    SERVICE.api().get("/v1/messages/" + id, "client-a").json();
            assertThat(message.get("status").asText()).isEqualTo("SENT");
            // A 429 is no failed attempt: every claim of the message (a job the rate kept waiting may be claimed again,
            // handed back or re-driven) is of attempt 1, and none failed.
            assertThat(Messages.events(SERVICE, id, "ATTEMPT_FAILED")).isZero();
            for (JsonNode event : Messages.history(SERVICE, id)) {
                if (event.get("type").asText().equals("CLAIMED")
                        || event.get("type").asText().equals("PROVIDER_ACCEPTED")) {
                    assertThat(event.get("data").get("attempt").asInt())
                            .as(event.toString())
                            .isEqualTo(1);
                }
            }
            assertThat(Messages.ledgerRows(SERVICE, id)).isEqualTo(1);
        }
        assertThat(SERVICE.simulator().stats().uniqueKeys()).isEqualTo(40);
    }
}
