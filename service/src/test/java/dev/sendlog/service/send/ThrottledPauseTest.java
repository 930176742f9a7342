package dev.sendlog.service.send;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.simulator.ReceiptMode;
import dev.sendlog.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A gateway without a rate of its own whose provider answers 429 (issue 29): the worker waits the Retry-After inside
 * its claim. While it waits, the pipeline's clock runs ten times faster than the wall's, so the claim's deadline passes
 * and the timers re-drive the message to another attempt. A worker that woke and submitted anyway would send one key
 * twice beside that attempt; it must hand the job back instead.
 */
class ThrottledPauseTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
                    "gateways.sim.statusQuery",
                    "true",
                    "gateways.sim.queriesPerSecond",
                    "200",
                    "pipeline.maxAttempts",
                    "10")
            .simulator(SimulatorConfig.defaults().toBuilder()
                    .latencyMs(5)
                    .receiptMode(ReceiptMode.NONE)
                    .maxPerSecond(5)
                    .dropAfterAcceptRate(0.2)
                    .seed(29L)
                    .build());

    @Test
    void aPauseThatOutlivesItsClaimNeverSubmitsTheKeyAgain() {
        List<String> ids = Messages.submit(SERVICE, 30);
        Messages.awaitAdvancing(SERVICE, Duration.ofSeconds(2), Duration.ofSeconds(90), () -> {
            for (String id : ids) {
                assertThat(SERVICE.api()
                                .get("/v1/messages/" + id, "support-1")
                                .json()
                                .get("status")
                                .asText())
                        .as(id)
                        .isEqualTo("SENT");
            }
        });
        assertThat(SERVICE.simulator().stats().throttled())
                .as("the provider refused some for its rate")
                .isPositive();
        assertThat(SERVICE.simulator().stats().duplicateSubmits())
                .as("no key taken twice")
                .isZero();
        for (String id : ids) {
            assertThat(Messages.ledgerRows(SERVICE, id)).as(id).isEqualTo(1);
            assertThat(Messages.events(SERVICE, id, "PROVIDER_ACCEPTED")).as(id).isEqualTo(1);
        }
    }
}
