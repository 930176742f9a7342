package dev.sendlog.service.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import dev.sendlog.simulator.ReceiptMode;
import dev.sendlog.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 32's lost submit answer: a retry after an attempt that ended without an answer asks the provider by the
 * idempotency key first. Taken (200): the acceptance is recorded with the provider's id and nothing is submitted again.
 * Never taken (404): the retry submits. The simulator's own records are the judge.
 */
class LostSubmitAnswerTest {
    private static final SimulatorConfig NORMAL = SimulatorConfig.defaults().toBuilder()
            .latencyMs(5)
            .receiptMode(ReceiptMode.FINAL)
            .intermediateReceipts(1)
            .receiptDelayMs(10)
            .receiptSpacingMs(5)
            .build();

    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
                    "gateways.sim.statusQuery",
                    "true",
                    "gateways.sim.queriesPerSecond",
                    "200",
                    "pipeline.maxAttempts",
                    "10")
            .simulator(NORMAL);

    @AfterEach
    void normal() {
        SERVICE.simulator().updateConfig(NORMAL);
    }

    private static long counter(String name) {
        return SERVICE.admin()
                .get("/metrics", null)
                .json()
                .path("counters")
                .path(name)
                .path("count")
                .asLong();
    }

    private static void awaitDelivered(List<String> ids) {
        Messages.awaitAdvancing(SERVICE, Duration.ofSeconds(2), Duration.ofSeconds(60), () -> {
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
    }

    private static void assertOneSubmitAndOneChargeEach(List<String> ids) {
        Map<String, JsonNode> records = Messages.providerRecords(SERVICE);
        for (String id : ids) {
            assertThat(records).as("the provider has " + id).containsKey(id);
            JsonNode message =
                    SERVICE.api().get("/v1/messages/" + id, "support-1").json();
            assertThat(message.get("providerId").asText())
                    .isEqualTo(records.get(id).get("providerId").asText());
            assertThat(Messages.ledgerRows(SERVICE, id)).isEqualTo(1);
            assertThat(Messages.events(SERVICE, id, "PROVIDER_ACCEPTED")).isEqualTo(1);
        }
    }

    @Test
    void aSubmitWhoseAnswerWasCutIsFoundByQueryAndNeverSubmittedTwice() {
        SERVICE.simulator()
                .updateConfig(NORMAL.toBuilder().dropAfterAcceptRate(1.0).build());
        long submitsBefore = SERVICE.simulator().stats().submits();
        long duplicatesBefore = SERVICE.simulator().stats().duplicateSubmits();
        long foundBefore = counter("send.retry.queries.found");
        List<String> ids = Messages.submit(SERVICE, 10);
        awaitDelivered(ids);
        assertThat(SERVICE.simulator().stats().submits() - submitsBefore)
                .as("every message submitted once")
                .isEqualTo(10);
        assertThat(SERVICE.simulator().stats().duplicateSubmits() - duplicatesBefore)
                .isZero();
        assertThat(counter("send.retry.queries.found") - foundBefore).isGreaterThanOrEqualTo(10);
        assertOneSubmitAndOneChargeEach(ids);
        for (String id : ids) {
            assertThat(Messages.events(SERVICE, id, "ATTEMPT_FAILED"))
                    .as("the attempt whose answer was lost")
                    .isEqualTo(1);
        }
    }

    @Test
    void aSubmitTheProviderNeverTookIsSubmittedAgainAfterA404() {
        // 503s before the provider records anything, and answers cut after it did: both kinds of retry, at random.
        SERVICE.simulator()
                .updateConfig(NORMAL.toBuilder()
                        .transientErrorRate(0.3)
                        .dropAfterAcceptRate(0.3)
                        .seed(32L)
                        .build());
        long duplicatesBefore = SERVICE.simulator().stats().duplicateSubmits();
        long notTakenBefore = counter("send.retry.queries.not.taken");
        long foundBefore = counter("send.retry.queries.found");
        List<String> ids = Messages.submit(SERVICE, 30);
        awaitDelivered(ids);
        assertThat(SERVICE.simulator().stats().duplicateSubmits() - duplicatesBefore)
                .as("no key taken twice")
                .isZero();
        assertThat(counter("send.retry.queries.not.taken") - notTakenBefore)
                .as("some retries followed a 404")
                .isPositive();
        assertThat(counter("send.retry.queries.found") - foundBefore)
                .as("some retries found the lost answer")
                .isPositive();
        assertOneSubmitAndOneChargeEach(ids);
        String in = "'" + String.join("','", ids) + "'";
        assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM ledger WHERE effect_key IN (" + in + ")"))
                .isEqualTo(30);
    }

    /**
     * A status query before a retry that fails (the provider's lookup down) cannot tell whether the lost answer's submit
     * was taken: the retry submits again with the same idempotency key, and the provider's idempotency keeps it one
     * effect. The provider answers the old id for the key it has, the message is charged once.
     */
    @Test
    void aRetryWhoseQueryFailsSubmitsAgainWithTheSameKeyAndIsChargedOnce() {
        SERVICE.simulator()
                .updateConfig(NORMAL.toBuilder()
                        .dropAfterAcceptRate(1.0)
                        .queryErrorRate(1.0)
                        .build());
        long duplicatesBefore = SERVICE.simulator().stats().duplicateSubmits();
        long failedBefore = counter("send.retry.queries.failed");
        List<String> ids = Messages.submit(SERVICE, 5);
        // Each first answer cut after the provider took the message; the service's clock stands still, so no retry yet.
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> ids.stream().allMatch(id -> Messages.events(SERVICE, id, "ATTEMPT_FAILED") == 1));
        SERVICE.simulator().updateConfig(NORMAL.toBuilder().queryErrorRate(1.0).build());
        awaitDelivered(ids);
        assertThat(counter("send.retry.queries.failed") - failedBefore)
                .as("each retry's query failed")
                .isGreaterThanOrEqualTo(5);
        assertThat(SERVICE.simulator().stats().duplicateSubmits() - duplicatesBefore)
                .as("each retry submitted the key the provider already had, and got its old id")
                .isEqualTo(5);
        assertOneSubmitAndOneChargeEach(ids);
    }
}
