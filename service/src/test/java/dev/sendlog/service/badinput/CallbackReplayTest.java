package dev.sendlog.service.badinput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sendlog.service.receipts.CallbackSignature;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A callback replayed with a valid signature is answered 200 with the inbox row that already holds its body (marked
 * replayed, counted, not stored again) and changes its message once: one RECEIPT event, one outcome. A callback signed
 * with another gateway's secret is 401.
 */
class CallbackReplayTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness();

    private static ApiResponse callback(String gateway, String body, String secret) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        return SERVICE.api()
                .postBytes(
                        "/v1/callbacks/" + gateway,
                        null,
                        "application/json",
                        bytes,
                        "X-Signature",
                        CallbackSignature.sign(secret, bytes));
    }

    private static long count(String sql) {
        return Sql.count(SERVICE.dataSource(), sql);
    }

    @Test
    void aReplayedCallbackIsAnsweredWithItsRowAndChangesTheMessageOnlyOnce() {
        String id = Messages.submitOne(SERVICE, Messages.recipient());
        String providerId = await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> SERVICE.api()
                                .get("/v1/messages/" + id, "support-1")
                                .json()
                                .path("providerId")
                                .asText(null),
                        p -> p != null);
        String receipt = "{\"id\":\"" + providerId + "\",\"reference\":\"" + id
                + "\",\"status\":\"DELIVRD\",\"timestamp\":\"2611300931\"}";
        long rowsBefore = count("SELECT count(*) FROM callback_inbox");

        ApiResponse first = callback("sim", receipt, "sim-secret");
        ApiResponse replay = callback("sim", receipt, "sim-secret");
        assertThat(first.status()).isEqualTo(200);
        assertThat(replay.status()).isEqualTo(200);
        long firstInbox = first.json().get("stored").asLong();
        assertThat(replay.json().get("stored").asLong())
                .as("the replay names the row that holds the body")
                .isEqualTo(firstInbox);
        assertThat(replay.json().get("replayed").asBoolean()).isTrue();
        assertThat(count("SELECT count(*) FROM callback_inbox"))
                .as("stored once")
                .isEqualTo(rowsBefore + 1);

        Messages.awaitCount(
                SERVICE,
                "SELECT count(*) FROM callback_outcomes WHERE inbox_id = " + firstInbox,
                1,
                Duration.ofSeconds(30));
        Messages.awaitStatus(SERVICE, id, "DELIVERED", Duration.ofSeconds(30));
        assertThat(Messages.events(SERVICE, id, "RECEIPT")).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM callback_outcomes WHERE message_id = '" + id
                        + "' AND outcome = 'appended'"))
                .isEqualTo(1);
        assertThat(count("SELECT count(*) FROM callback_outcomes WHERE message_id = '" + id + "'"))
                .isEqualTo(1);
    }

    @Test
    void aCallbackSignedWithAnotherGatewaysSecretIs401AndNothingIsStored() {
        long before = count("SELECT count(*) FROM callback_inbox");
        String smpp = "{\"id\":\"p1\",\"status\":\"DELIVRD\",\"timestamp\":\"2611300931\"}";
        String json = "{\"id\":\"p1\",\"status\":\"delivered\",\"timestamp\":\"2026-11-30T09:31:00Z\"}";
        for (ApiResponse r :
                new ApiResponse[] {callback("sim", smpp, "other-secret"), callback("other", json, "sim-secret")}) {
            assertThat(r.status()).isEqualTo(401);
            assertThat(r.contentType()).startsWith("application/problem+json");
            assertThat(r.json().get("status").asInt()).isEqualTo(401);
        }
        assertThat(count("SELECT count(*) FROM callback_inbox")).isEqualTo(before);
        assertThat(callback("other", json, "other-secret").status())
                .as("the same body signed right")
                .isEqualTo(200);
    }
}
