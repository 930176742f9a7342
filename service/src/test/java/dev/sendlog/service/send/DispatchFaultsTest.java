package dev.sendlog.service.send;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sendlog.events.EventType;
import dev.sendlog.service.faults.FaultPoint;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Faults at the field report's four moments, and a Redis that forgets or goes away. After each, every message
 * is SENT with exactly one ledger row: a crash changes latency, never the outcome.
 */
class DispatchFaultsTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness().privateRedis();

    private static final Duration PAST_TIMEOUTS = Duration.ofSeconds(6);

    private static void assertSentOnce(String id) {
        assertThat(Messages.events(SERVICE, id, "PROVIDER_ACCEPTED")).isEqualTo(1);
        assertThat(Messages.ledgerRows(SERVICE, id)).isEqualTo(1);
    }

    @Test
    void afterTheAcceptCommitTheClientSeesAnErrorButTheMessageIsStillSentOnce() {
        String to = Messages.recipient();
        SERVICE.faults().arm(FaultPoint.AFTER_ACCEPT_COMMIT, 1);
        ApiResponse r = SERVICE.api().post("/v1/messages", "client-a", "{\"to\":\"" + to + "\",\"body\":\"b\"}");
        assertThat(r.status()).isEqualTo(500);
        String id = Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM messages WHERE recipient = '" + to + "'") == 1
                ? SERVICE.api()
                        .get("/v1/messages?to=" + to.replace("+", "%2B"), "support-1")
                        .json()
                        .get("items")
                        .get(0)
                        .get("id")
                        .asText()
                : null;
        assertThat(id).as("the committed message exists").isNotNull();
        Messages.awaitStatus(SERVICE, id, "SENT", Duration.ofSeconds(30));
        assertSentOnce(id);
    }

    @Test
    void aWorkerDyingAfterItsClaimIsBroughtBackByTheClaimDeadline() {
        SERVICE.faults().arm(FaultPoint.AFTER_CLAIM, 1);
        String id = Messages.submitOne(SERVICE, Messages.recipient());
        await().atMost(Duration.ofSeconds(30)).until(() -> SERVICE.faults().fired(FaultPoint.AFTER_CLAIM) == 1);
        Messages.awaitAdvancing(
                SERVICE,
                PAST_TIMEOUTS,
                Duration.ofSeconds(60),
                () -> assertThat(Messages.events(SERVICE, id, "PROVIDER_ACCEPTED"))
                        .isEqualTo(1));
        assertSentOnce(id);
        assertThat(Messages.events(SERVICE, id, "CLAIMED")).isEqualTo(2);
        assertThat(Messages.history(SERVICE, id))
                .filteredOn(e -> e.get("type").asText().equals("REDRIVEN")
                        && e.get("data").get("reason").asText().equals("CLAIM_TIMEOUT"))
                .hasSize(1);
    }

    @Test
    void aPollerDyingBetweenPublishAndAppendPublishesAgainWithoutASecondSend() {
        long duplicatesBefore = SERVICE.simulator().stats().duplicateSubmits();
        SERVICE.faults().arm(FaultPoint.BETWEEN_PUBLISH_AND_APPEND, 1);
        String id = Messages.submitOne(SERVICE, Messages.recipient());
        Messages.awaitStatus(SERVICE, id, "SENT", Duration.ofSeconds(30));
        assertThat(SERVICE.faults().fired(FaultPoint.BETWEEN_PUBLISH_AND_APPEND))
                .isEqualTo(1);
        assertSentOnce(id);
        assertThat(SERVICE.simulator().stats().duplicateSubmits()).isEqualTo(duplicatesBefore);
    }

    @Test
    void aWorkerDyingBetweenTheProvidersAnswerAndItsWriteIsRecoveredWithTheSameKeyAndChargedOnce() {
        long duplicatesBefore = SERVICE.simulator().stats().duplicateSubmits();
        SERVICE.faults().arm(FaultPoint.BETWEEN_PROVIDER_ANSWER_AND_WRITE, 1);
        String id = Messages.submitOne(SERVICE, Messages.recipient());
        await().atMost(Duration.ofSeconds(30))
                .until(() -> SERVICE.faults().fired(FaultPoint.BETWEEN_PROVIDER_ANSWER_AND_WRITE) == 1);
        assertThat(Messages.events(SERVICE, id, "PROVIDER_ACCEPTED")).isZero();
        Messages.awaitAdvancing(
                SERVICE,
                PAST_TIMEOUTS,
                Duration.ofSeconds(60),
                () -> assertThat(Messages.events(SERVICE, id, "PROVIDER_ACCEPTED"))
                        .isEqualTo(1));
        assertSentOnce(id);
        // The recovery asked the provider again with the same key and got the same id back: a second submit, not a
        // second send.
        assertThat(SERVICE.simulator().stats().duplicateSubmits()).isEqualTo(duplicatesBefore + 1);
        assertThat(SERVICE.simulator().keys()).containsOnlyOnce("sendlog-" + id);
    }

    @Test
    void redisRestartedEmptyInTheMiddleOfARunLosesNothing() {
        List<String> ids = Messages.submit(SERVICE, 400);
        SERVICE.privateRedisServer().process().restart();
        String in = "'" + String.join("','", ids) + "'";
        Messages.awaitAdvancing(
                SERVICE,
                PAST_TIMEOUTS,
                Duration.ofSeconds(90),
                () -> assertThat(Messages.withEventRow(SERVICE, ids, EventType.PROVIDER_ACCEPTED))
                        .isEqualTo(ids.size()));
        assertThat(Messages.charged(SERVICE, ids)).isEqualTo(ids.size());
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT count(*) FROM message_events WHERE type = " + EventType.PROVIDER_ACCEPTED.code()
                                + " AND message_id IN (" + in + ")"))
                .as("one acceptance each")
                .isEqualTo(ids.size());
    }

    @Test
    void whileRedisIsDownTheApiKeepsAcceptingAndDeliveryResumesByItself() {
        SERVICE.privateRedisServer().process().stop();
        List<String> ids;
        try {
            ids = Messages.submit(SERVICE, 50);
            assertThat(ids).hasSize(50);
        } finally {
            SERVICE.privateRedisServer().process().restart();
        }
        Messages.awaitAdvancing(
                SERVICE,
                PAST_TIMEOUTS,
                Duration.ofSeconds(90),
                () -> assertThat(Messages.charged(SERVICE, ids)).isEqualTo(ids.size()));
    }
}
