package dev.sendlog.service.dispatch;

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
 * {@code pipeline.sendWorker.concurrency} bounds provider calls in flight, counted by the simulator itself, while the
 * worker holds {@code jobsPerCallSlot} times as many jobs so that their database writes overlap other jobs' calls.
 */
class SendConcurrencyTest {
    private static final int CONCURRENCY = 4;

    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness("pipeline.sendWorker.concurrency", Integer.toString(CONCURRENCY),
            "pipeline.sendWorker.jobsPerCallSlot", "3")
            .simulator(SimulatorConfig.defaults().toBuilder().latencyMs(100).receiptMode(ReceiptMode.NONE).build());

    @Test
    void providerCallsInFlightNeverExceedTheConcurrencyWhileMoreJobsAreHeld() {
        SERVICE.simulator().reset();
        List<String> ids = Messages.submit(SERVICE, 60);
        String in = "'" + String.join("','", ids) + "'";
        Messages.awaitCount(SERVICE, "SELECT count(DISTINCT message_id) FROM message_events WHERE type = 'PROVIDER_ACCEPTED'"
                + " AND message_id IN (" + in + ")", ids.size(), Duration.ofSeconds(60));

        assertThat(SERVICE.simulator().stats().uniqueKeys()).isEqualTo(ids.size());
        // Up to 12 jobs were held at once; the calls among them never went past 4 (and the bound was used).
        assertThat(SERVICE.simulator().stats().maxConcurrentSubmits()).isBetween(2L, (long) CONCURRENCY);
    }
}
