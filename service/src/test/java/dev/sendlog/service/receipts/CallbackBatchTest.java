package dev.sendlog.service.receipts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import dev.sendlog.simulator.ReceiptMode;
import dev.sendlog.simulator.SimulatorConfig;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The callback worker decides a read's callbacks together. Callbacks stored while the worker is paused are read at
 * once when it resumes, so many receipts for one message share a batch: they must end exactly as if they had come
 * one at a time (every receipt in order, the duplicate recognised, a late intermediate not undoing the final), and
 * bad input in the same batch is still parked or held, never lost. The batch and the bound (32) exceed the 21
 * callbacks, so the one read after the resume is one batch and the order between messages' receipts is fixed.
 */
class CallbackBatchTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
                    "receipts.holdWindow", "10m", "receipts.batchSize", "32", "receipts.concurrency", "32")
            .simulator(SimulatorConfig.defaults().toBuilder()
                    .latencyMs(5)
                    .receiptMode(ReceiptMode.NONE)
                    .build());

    private static ApiResponse callback(String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        return SERVICE.api()
                .postBytes(
                        "/v1/callbacks/sim",
                        null,
                        "application/json",
                        bytes,
                        "X-Signature",
                        CallbackSignature.sign("sim-secret", bytes));
    }

    private static String receipt(String providerId, String reference, String status, String timestamp) {
        return "{\"id\":\"" + providerId + "\"" + (reference == null ? "" : ",\"reference\":\"" + reference + "\"")
                + ",\"status\":\"" + status + "\",\"timestamp\":\"" + timestamp + "\"}";
    }

    private static JsonNode message(String id) {
        return SERVICE.api().get("/v1/messages/" + id, "support-1").json();
    }

    private static List<String> receiptStatuses(String id) {
        List<String> statuses = new ArrayList<>();
        SERVICE.api()
                .get("/v1/messages/" + id + "/events", "support-1")
                .json()
                .get("events")
                .forEach(e -> {
                    if (e.get("type").asText().equals("RECEIPT")) {
                        // "ENROUTE@09:01": the provider's status and the hour and minute of its timestamp (the day is
                        // the same for all).
                        statuses.add(e.get("data").get("providerStatus").asText() + "@"
                                + Instant.parse(e.get("data")
                                                .get("providerTimestamp")
                                                .asText())
                                        .toString()
                                        .substring(11, 16));
                    }
                });
        return statuses;
    }

    private static long outcomes(String id, String outcome) {
        return Sql.count(
                SERVICE.dataSource(),
                "SELECT count(*) FROM callback_outcomes WHERE message_id = '" + id + "' AND outcome = '" + outcome
                        + "'");
    }

    @Test
    void manyReceiptsForOneMessageInOneBatchEndAsIfTheyCameOneAtATime() {
        List<String> ids = Messages.submit(SERVICE, 3);
        for (String id : ids) {
            Messages.awaitStatus(SERVICE, id, "SENT", Duration.ofSeconds(30));
        }
        String delivered = ids.get(0);
        String undelivered = ids.get(1);
        String byProviderId = ids.get(2);
        String deliveredPid = message(delivered).get("providerId").asText();
        String undeliveredPid = message(undelivered).get("providerId").asText();
        String byProviderIdPid = message(byProviderId).get("providerId").asText();
        long before = Sql.count(SERVICE.dataSource(), "SELECT coalesce(max(id), 0) FROM callback_inbox");

        assertThat(SERVICE.admin()
                        .post("/tasks/pause?component=callback-worker", "admin-1", "")
                        .status())
                .isEqualTo(200);
        List<String> expectedDelivered = new ArrayList<>();
        for (int minute = 1; minute <= 10; minute++) {
            String ts = String.format("26113009%02d", minute);
            assertThat(callback(receipt(deliveredPid, delivered, "ENROUTE", ts)).status())
                    .isEqualTo(200);
            expectedDelivered.add(String.format("ENROUTE@09:%02d", minute));
        }
        assertThat(callback(receipt(deliveredPid, delivered, "DELIVRD", "2611300920"))
                        .status())
                .isEqualTo(200);
        // The same receipt again, serialised a little differently (so stored: the decision recognises it)...
        assertThat(callback(receipt(deliveredPid, delivered, "DELIVRD", "2611300920") + " ")
                        .status())
                .isEqualTo(200);
        // ...and byte for byte again (answered with the row that holds it, not stored a second time).
        assertThat(callback(receipt(deliveredPid, delivered, "DELIVRD", "2611300920"))
                        .json()
                        .path("replayed")
                        .asBoolean())
                .isTrue();
        assertThat(callback(receipt(deliveredPid, delivered, "ENROUTE", "2611300915"))
                        .status())
                .isEqualTo(200);
        expectedDelivered.add("DELIVRD@09:20");
        expectedDelivered.add("ENROUTE@09:15");
        assertThat(callback(receipt(undeliveredPid, undelivered, "UNDELIV", "2611300930"))
                        .status())
                .isEqualTo(200);
        assertThat(callback(receipt(undeliveredPid, undelivered, "ACCEPTD", "2611300925"))
                        .status())
                .isEqualTo(200);
        // Matched by the provider id alone (no reference echoed), twice, then a duplicate of the first.
        assertThat(callback(receipt(byProviderIdPid, null, "ACCEPTD", "2611300940"))
                        .status())
                .isEqualTo(200);
        assertThat(callback(receipt(byProviderIdPid, null, "DELIVRD", "2611300941"))
                        .status())
                .isEqualTo(200);
        assertThat(callback(receipt(byProviderIdPid, null, "ACCEPTD", "2611300940") + " ")
                        .status())
                .isEqualTo(200);
        // Bad input in the same batch: not JSON, an unmapped status (parked), a provider id nobody used (held).
        assertThat(callback("not json at all").status()).isEqualTo(200);
        assertThat(callback(receipt(deliveredPid, delivered, "WHATEVER", "2611300950"))
                        .status())
                .isEqualTo(200);
        assertThat(callback(receipt("no-such-provider-id", null, "DELIVRD", "2611300950"))
                        .status())
                .isEqualTo(200);
        long stored = Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM callback_inbox WHERE id > " + before);
        assertThat(stored).isEqualTo(21);
        assertThat(SERVICE.admin()
                        .post("/tasks/resume?component=callback-worker", "admin-1", "")
                        .status())
                .isEqualTo(200);

        Messages.awaitStatus(SERVICE, delivered, "DELIVERED", Duration.ofSeconds(30));
        Messages.awaitStatus(SERVICE, undelivered, "UNDELIVERED", Duration.ofSeconds(30));
        Messages.awaitStatus(SERVICE, byProviderId, "DELIVERED", Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(Sql.count(
                                SERVICE.dataSource(),
                                "SELECT count(*) FROM callback_outcomes WHERE inbox_id > " + before))
                        .isEqualTo(20));

        // Every receipt recorded once, in arrival order; the duplicate changed nothing; the late intermediate is kept
        // in the history but the status stays final.
        assertThat(receiptStatuses(delivered)).containsExactlyElementsOf(expectedDelivered);
        assertThat(outcomes(delivered, "appended")).isEqualTo(12);
        assertThat(outcomes(delivered, "duplicate")).isEqualTo(1);
        assertThat(message(delivered).get("status").asText()).isEqualTo("DELIVERED");
        assertThat(receiptStatuses(undelivered)).containsExactly("UNDELIV@09:30", "ACCEPTD@09:25");
        assertThat(message(undelivered).get("status").asText()).isEqualTo("UNDELIVERED");
        assertThat(receiptStatuses(byProviderId)).containsExactly("ACCEPTD@09:40", "DELIVRD@09:41");
        assertThat(outcomes(byProviderId, "duplicate")).isEqualTo(1);
        // The unmapped status is parked against its message; the body that is not JSON is parked with no message.
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT count(*) FROM parked_input WHERE inbox_id > " + before + " AND message_id = '"
                                + delivered + "'"))
                .isEqualTo(1);
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT count(*) FROM parked_input WHERE inbox_id > " + before + " AND message_id IS NULL"))
                .isEqualTo(1);
        // The receipt nobody sent for is held (no outcome yet) until the hold window ends.
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT count(*) FROM callback_inbox i WHERE id > " + before
                                + " AND NOT EXISTS (SELECT 1 FROM callback_outcomes o WHERE o.inbox_id = i.id)"))
                .isEqualTo(1);
        // And they were decided together: the largest batch held more than one callback.
        JsonNode sizes =
                SERVICE.admin().get("/metrics", null).json().path("histograms").path("callbacks.batch.size");
        assertThat(sizes.path("max").asLong()).isGreaterThan(1);
    }
}
