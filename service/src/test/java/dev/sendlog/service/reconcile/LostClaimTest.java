package dev.sendlog.service.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sendlog.service.faults.FaultPoint;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.simulator.ReceiptMode;
import dev.sendlog.simulator.SimulatorConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A worker that dies with the last attempt's claim (issue 32): its call may or may not have reached the provider, and
 * before the status query that was UNKNOWN. Asked, the provider says: taken (recorded SENT and charged once, never
 * submitted again) or never taken (DEAD, uncharged).
 */
class LostClaimTest {
    private static final Duration PAST_TIMEOUTS = Duration.ofSeconds(6);

    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
                    "gateways.sim.statusQuery", "true", "pipeline.maxAttempts", "1")
            .simulator(SimulatorConfig.defaults().toBuilder()
                    .latencyMs(5)
                    .receiptMode(ReceiptMode.NONE)
                    .build());

    @Test
    void aLastAttemptTheProviderTookBeforeItsWorkerDiedIsRecordedSentAndChargedOnce() {
        long submitsBefore = SERVICE.simulator().stats().submits();
        SERVICE.faults().arm(FaultPoint.BETWEEN_PROVIDER_ANSWER_AND_WRITE, 1);
        String id = Messages.submitOne(SERVICE, Messages.recipient());
        await().atMost(Duration.ofSeconds(30))
                .until(() -> SERVICE.faults().fired(FaultPoint.BETWEEN_PROVIDER_ANSWER_AND_WRITE) == 1);
        Messages.awaitAdvancing(
                SERVICE,
                PAST_TIMEOUTS,
                Duration.ofSeconds(60),
                () -> assertThat(Messages.events(SERVICE, id, "PROVIDER_ACCEPTED"))
                        .isEqualTo(1));
        assertThat(SERVICE.api()
                        .get("/v1/messages/" + id, "support-1")
                        .json()
                        .get("status")
                        .asText())
                .isEqualTo("SENT");
        assertThat(Messages.events(SERVICE, id, "OUTCOME_UNKNOWN")).isZero();
        assertThat(Messages.ledgerRows(SERVICE, id)).isEqualTo(1);
        assertThat(SERVICE.simulator().stats().submits() - submitsBefore)
                .as("never submitted again")
                .isEqualTo(1);
    }

    @Test
    void aLastAttemptThatNeverReachedTheProviderIsDeadAndUncharged() {
        SERVICE.faults().arm(FaultPoint.AFTER_CLAIM, 1);
        String id = Messages.submitOne(SERVICE, Messages.recipient());
        await().atMost(Duration.ofSeconds(30)).until(() -> SERVICE.faults().fired(FaultPoint.AFTER_CLAIM) == 1);
        Messages.awaitAdvancing(
                SERVICE,
                PAST_TIMEOUTS,
                Duration.ofSeconds(60),
                () -> assertThat(SERVICE.api()
                                .get("/v1/messages/" + id, "support-1")
                                .json()
                                .get("status")
                                .asText())
                        .isEqualTo("DEAD"));
        assertThat(Messages.events(SERVICE, id, "OUTCOME_UNKNOWN")).isZero();
        assertThat(Messages.ledgerRows(SERVICE, id)).isZero();
        assertThat(Messages.providerRecords(SERVICE)).doesNotContainKey(id);
    }
}
