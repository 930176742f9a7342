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
 * Jobs a read brings that the gateway's rate cannot take at once wait for their tokens and are sent as they come
 * (issue 29), not left pending until the stream's reclaim or the confirm timer: both are 300 s here, so only waiting
 * gets the messages out within the minute. (Leaving them pending made scripts/bench-rate's workers idle for a reclaim.)
 */
class GatewayRateWaitTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
                    "gateways.sim.maxPerSecond",
                    "25",
                    "pipeline.sendWorker.reclaimIdle",
                    "300s",
                    "pipeline.confirmTimeout",
                    "300s")
            .simulator(SimulatorConfig.defaults().toBuilder()
                    .latencyMs(5)
                    .receiptMode(ReceiptMode.NONE)
                    .build());

    @Test
    void aReadLargerThanTheRateIsSentAsTheTokensComeWithoutWaitingForAReclaim() {
        List<String> ids = Messages.submit(SERVICE, 150);
        Messages.awaitCount(SERVICE, "SELECT count(*) FROM ledger", 150, Duration.ofSeconds(60));
        assertThat(SERVICE.simulator().stats().uniqueKeys()).isEqualTo(150);
        assertThat(SERVICE.simulator().stats().duplicateSubmits()).isZero();
        assertThat(SERVICE.simulator().stats().throttled()).isZero();
        for (String id : ids) {
            assertThat(Messages.ledgerRows(SERVICE, id)).as(id).isEqualTo(1);
        }
    }
}
