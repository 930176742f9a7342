package dev.sendlog.service.controls;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A message that waits past its validity (issue 26): this process runs the API, the poller and the timers but no send
 * worker, so published work waits on the stream. With no worker at all, the timers expire it; a worker that starts
 * after the validity passed expires it at its claim instead of submitting it. Either way it is never submitted and
 * never charged. The clock is the test's and stands still unless moved.
 */
class ExpiryWhileWaitingTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness("components", "API,POLLER,MAINTENANCE");

    private static String submitWithTtl(int seconds) {
        return SERVICE.api()
                .post(
                        "/v1/messages",
                        "client-a",
                        "{\"to\":\"" + Messages.recipient() + "\",\"body\":\"waits\",\"ttlSeconds\":" + seconds + "}")
                .json()
                .get("id")
                .asText();
    }

    private static void assertNeverSubmittedNorCharged(String id) {
        assertThat(Messages.history(SERVICE, id))
                .extracting(e -> e.get("type").asText())
                .doesNotContain("CLAIMED", "PROVIDER_ACCEPTED");
        assertThat(Messages.ledgerRows(SERVICE, id)).isZero();
        assertThat(Messages.providerRecords(SERVICE)).doesNotContainKey(id);
    }

    @Test
    void withNoWorkerTheTimersExpireAMessageWaitingPastItsValidity() {
        String id = submitWithTtl(5);
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> Messages.publications(SERVICE, id) > 0);
        // Past the validity and past the publication's confirm deadline, when the timers look at it.
        Messages.awaitAdvancing(
                SERVICE,
                Duration.ofSeconds(5),
                Duration.ofSeconds(60),
                () -> assertThat(SERVICE.api()
                                .get("/v1/messages/" + id, "client-a")
                                .json()
                                .get("status")
                                .asText())
                        .isEqualTo("EXPIRED"));
        List<JsonNode> history = Messages.history(SERVICE, id);
        assertThat(history.getLast().get("type").asText()).isEqualTo("EXPIRED");
        assertThat(history.getLast().get("actor").asText()).isEqualTo("timer");
        assertThat(history).extracting(e -> e.get("type").asText()).doesNotContain("REDRIVEN");
        assertNeverSubmittedNorCharged(id);
    }

    @Test
    void aWorkerThatClaimsAfterTheValidityPassedExpiresTheMessageInsteadOfSubmittingIt() throws Exception {
        String id = submitWithTtl(1);
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> Messages.publications(SERVICE, id) > 0);
        // Past the validity, before the publication's confirm deadline (5 s in test-config.yml): the timers leave it
        // be.
        SERVICE.clock().advance(Duration.ofSeconds(3));
        try (ServiceHarness.Instance worker = SERVICE.startAnother(null, "components", "SEND_WORKER")) {
            Messages.awaitStatus(SERVICE, id, "EXPIRED", Duration.ofSeconds(30));
        }
        List<JsonNode> history = Messages.history(SERVICE, id);
        assertThat(history).extracting(e -> e.get("type").asText()).containsExactly("ACCEPTED", "PUBLISHED", "EXPIRED");
        assertThat(history.getLast().get("actor").asText())
                .as("decided at the claim")
                .startsWith("worker-");
        assertNeverSubmittedNorCharged(id);
    }
}
