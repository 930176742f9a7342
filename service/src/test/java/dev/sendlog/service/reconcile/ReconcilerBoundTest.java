package dev.sendlog.service.reconcile;

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
 * The reconciler's own bound (issue 32): however many messages come due for a status query at once, no more than
 * {@code pipeline.reconcile.concurrency} queries are at the provider at the same time, as the provider itself counts
 * them; and they still all get asked.
 */
class ReconcilerBoundTest {
    private static final int BOUND = 2;
    private static final int MESSAGES = 12;

    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
                    "pipeline.reconcileWindow",
                    "1h",
                    "pipeline.reconcile.queryAfter",
                    "10m",
                    "pipeline.reconcile.concurrency",
                    Integer.toString(BOUND),
                    "gateways.sim.statusQuery",
                    "true",
                    "gateways.sim.queriesPerSecond",
                    "1000")
            .simulator(SimulatorConfig.defaults().toBuilder()
                    .latencyMs(5)
                    .receiptMode(ReceiptMode.NONE)
                    .queryLatencyMs(300)
                    .build());

    @Test
    void noMoreQueriesThanTheBoundAreAtTheProviderAtOnceAndEveryMessageIsAsked() {
        List<String> ids = Messages.submit(SERVICE, MESSAGES);
        for (String id : ids) {
            Messages.awaitStatus(SERVICE, id, "SENT", Duration.ofSeconds(30));
        }
        assertThat(SERVICE.simulator().stats().statusQueries())
                .as("nothing asked before queryAfter")
                .isZero();
        // All twelve come due together: each query takes the provider 300 ms, so unbounded they would overlap twelve
        // deep.
        Messages.awaitAdvancing(SERVICE, Duration.ofMinutes(1), Duration.ofSeconds(60), () -> {
            for (String id : ids) {
                assertThat(SERVICE.api()
                                .get("/v1/messages/" + id, "support-1")
                                .json()
                                .get("status")
                                .asText())
                        .as(id)
                        .isEqualTo("DELIVERED");
            }
        });
        assertThat(SERVICE.simulator().stats().statusQueries()).isGreaterThanOrEqualTo(MESSAGES);
        assertThat(SERVICE.simulator().stats().maxConcurrentQueries())
                .as("queries at the provider at once")
                .isEqualTo(BOUND);
    }
}
