package dev.sendlog.service.send;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
 * A job that waits for its gateway's rate claims from what its batch's read found, not from a read of its own after
 * the wait: the claim names the seq that read expects, so a message cancelled while its job waited loses nothing to
 * the stale read. The cancel wins, the job's claim loses its append, and the message is neither sent nor charged.
 */
class GatewayRateCancelTest {
    private static final int MESSAGES = 150;

    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
                    "gateways.sim.maxPerSecond",
                    "25",
                    // One read takes every job (2 per call slot), so the last ones wait for tokens for seconds.
                    "pipeline.sendWorker.concurrency",
                    "100",
                    "pipeline.sendWorker.reclaimIdle",
                    "300s",
                    "pipeline.confirmTimeout",
                    "300s")
            .simulator(SimulatorConfig.defaults().toBuilder()
                    .latencyMs(5)
                    .receiptMode(ReceiptMode.NONE)
                    .build());

    @Test
    void aMessageCancelledWhileItsJobWaitsForTheRateIsNeitherSentNorCharged() {
        List<String> ids = Messages.submit(SERVICE, MESSAGES);
        // Every job read (and its message with it) before any cancel: at 25 a second most of them then wait seconds for
        // their tokens, unclaimed, while the cancels go out.
        await().atMost(Duration.ofSeconds(30)).until(() -> SERVICE.timerCount("send.queue.wait") >= MESSAGES);
        List<String> cancelled = new ArrayList<>();
        List<String> tooLate = new ArrayList<>();
        for (String id : ids) {
            var answer = SERVICE.api().post("/v1/messages/" + id + "/cancel", "client-a", "");
            assertThat(answer.status()).as(answer.raw()).isIn(200, 409);
            (answer.status() == 200 ? cancelled : tooLate).add(id);
        }
        assertThat(cancelled)
                .as("the rate lets at most about 25 a second out: most jobs were still waiting when cancelled")
                .hasSizeGreaterThanOrEqualTo(MESSAGES / 2);
        Messages.awaitCount(SERVICE, "SELECT count(*) FROM ledger", tooLate.size(), Duration.ofSeconds(60));
        for (String id : cancelled) {
            assertThat(Messages.ledgerRows(SERVICE, id)).as(id).isZero();
            assertThat(Messages.history(SERVICE, id).getLast().get("type").asText())
                    .as(id)
                    .isEqualTo("CANCELLED");
        }
        for (String id : tooLate) {
            assertThat(Messages.ledgerRows(SERVICE, id)).as(id).isEqualTo(1);
        }
        assertThat(Messages.providerRecords(SERVICE)).doesNotContainKeys(cancelled.toArray(String[]::new));
        assertThat(SERVICE.simulator().stats().uniqueKeys()).isEqualTo(tooLate.size());
        assertThat(SERVICE.simulator().stats().duplicateSubmits()).isZero();
    }
}
