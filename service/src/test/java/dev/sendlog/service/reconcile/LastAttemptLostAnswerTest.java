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
 * The lost answer of a message's last attempt (issue 32): no retry will ask, so the worker asks at once, and a message
 * the provider took is SENT (then delivered), not DEAD.
 */
class LastAttemptLostAnswerTest {
    private static final SimulatorConfig CUT = SimulatorConfig.defaults().toBuilder()
            .latencyMs(5)
            .dropAfterAcceptRate(1.0)
            .receiptMode(ReceiptMode.FINAL)
            .intermediateReceipts(1)
            .receiptDelayMs(10)
            .receiptSpacingMs(5)
            .build();

    @RegisterExtension
    static final ServiceHarness SERVICE =
            new ServiceHarness("gateways.sim.statusQuery", "true", "pipeline.maxAttempts", "1").simulator(CUT);

    @Test
    void aLastAttemptWhoseAnswerWasCutIsFoundByQueryInsteadOfEndingDead() {
        List<String> ids = Messages.submit(SERVICE, 5);
        for (String id : ids) {
            Messages.awaitStatus(SERVICE, id, "DELIVERED", Duration.ofSeconds(30));
            assertThat(Messages.events(SERVICE, id, "DEAD")).isZero();
            assertThat(Messages.ledgerRows(SERVICE, id)).isEqualTo(1);
        }
        assertThat(SERVICE.simulator().stats().submits()).isEqualTo(5);
        assertThat(SERVICE.simulator().stats().duplicateSubmits()).isZero();
    }
}
