package dev.sendlog.service.receipts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.service.faults.FaultPoint;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import dev.sendlog.simulator.ReceiptMode;
import dev.sendlog.simulator.SimulatorConfig;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Receipts end to end: the simulator calls back over HTTP, signed; intake stores raw; the callback worker
 * appends RECEIPT events or parks; reconciliation turns "no final receipt" into UNKNOWN, never failed.
 */
class ReceiptsTest {
    private static final SimulatorConfig NORMAL = SimulatorConfig.defaults().toBuilder()
            .latencyMs(5)
            .receiptMode(ReceiptMode.FINAL)
            .intermediateReceipts(1)
            .receiptDelayMs(10)
            .receiptSpacingMs(5)
            .build();

    @RegisterExtension
    static final ServiceHarness SERVICE =
            new ServiceHarness("receipts.holdWindow", "10m", "pipeline.reconcileWindow", "1h").simulator(NORMAL);

    @AfterEach
    void normal() {
        SERVICE.simulator().updateConfig(NORMAL);
    }

    private static JsonNode message(String id) {
        return SERVICE.api().get("/v1/messages/" + id, "support-1").json();
    }

    private static List<JsonNode> receipts(String id) {
        List<JsonNode> receipts = new ArrayList<>();
        SERVICE.api()
                .get("/v1/messages/" + id + "/events", "support-1")
                .json()
                .get("events")
                .forEach(e -> {
                    if (e.get("type").asText().equals("RECEIPT")) {
                        receipts.add(e.get("data"));
                    }
                });
        return receipts;
    }

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

    private static long replayed() {
        return SERVICE.admin()
                .get("/metrics", null)
                .json()
                .path("counters")
                .path("callbacks.replayed")
                .path("count")
                .asLong();
    }

    private static long inboxRows() {
        return Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM callback_inbox");
    }

    /** A provider that sends the same signed body again is answered 200 with the row that holds it: stored once, counted. */
    @Test
    void theSameBodySentAgainIsStoredOnceAndAnsweredWithItsRow() {
        String id = Messages.submitOne(SERVICE, Messages.recipient());
        Messages.awaitStatus(SERVICE, id, "DELIVERED", Duration.ofSeconds(30));
        String providerId = message(id).get("providerId").asText();
        String body = "{\"id\":\"" + providerId + "\",\"reference\":\"" + id
                + "\",\"status\":\"DELIVRD\",\"timestamp\":\"2612011200\"}";
        long replayedBefore = replayed();
        long rowsBefore = inboxRows();
        ApiResponse first = callback("sim", body, "sim-secret");
        ApiResponse second = callback("sim", body, "sim-secret");
        ApiResponse third = callback("sim", body, "sim-secret");
        assertThat(List.of(first.status(), second.status(), third.status())).containsOnly(200);
        long stored = first.json().get("stored").asLong();
        assertThat(first.json().has("replayed")).isFalse();
        assertThat(second.json().get("stored").asLong()).isEqualTo(stored);
        assertThat(second.json().get("replayed").asBoolean()).isTrue();
        assertThat(third.json().get("stored").asLong()).isEqualTo(stored);
        assertThat(inboxRows()).as("one row for the body").isEqualTo(rowsBefore + 1);
        assertThat(replayed()).isEqualTo(replayedBefore + 2);
        // The same body on another gateway is another callback (and here, a wrong one: it is stored and parked).
        ApiResponse elsewhere = callback("other", body, "other-secret");
        assertThat(elsewhere.status()).isEqualTo(200);
        assertThat(elsewhere.json().get("stored").asLong()).isNotEqualTo(stored);
    }

    @Test
    void anIntermediateThenAFinalReceiptGiveInTransitThenDelivered() {
        String id = Messages.submitOne(SERVICE, Messages.recipient());
        Messages.awaitStatus(SERVICE, id, "DELIVERED", Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(30)).until(() -> receipts(id).size() == 2);
        List<JsonNode> receipts = receipts(id);
        // Callbacks are processed concurrently, so their order in the log may differ from the sending order.
        assertThat(receipts)
                .extracting(r -> r.get("kind").asText())
                .containsExactlyInAnyOrder("INTERMEDIATE", "DELIVERED");
        assertThat(receipts)
                .extracting(r -> r.get("providerStatus").asText())
                .containsExactlyInAnyOrder("ENROUTE", "DELIVRD");
        assertThat(receipts).allSatisfy(r -> {
            assertThat(r.get("providerTimestamp").asText()).isNotBlank();
            assertThat(r.get("providerId").asText())
                    .isEqualTo(message(id).get("providerId").asText());
        });
    }

    @Test
    void aBadMissingOrForeignSignatureIs401AndStoresNothing() {
        long before = inboxRows();
        String body = "{\"id\":\"p1\",\"status\":\"DELIVRD\",\"timestamp\":\"2611300931\"}";
        assertThat(callback("sim", body, "wrong-secret").status()).isEqualTo(401);
        assertThat(callback("sim", body, "other-secret").status())
                .as("another gateway's secret")
                .isEqualTo(401);
        ApiResponse none = SERVICE.api().post("/v1/callbacks/sim", null, body);
        assertThat(none.status()).isEqualTo(401);
        assertThat(none.contentType()).startsWith("application/problem+json");
        assertThat(inboxRows()).isEqualTo(before);
        assertThat(SERVICE.admin()
                        .get("/metrics", null)
                        .json()
                        .path("counters")
                        .path("callbacks.signature.rejected")
                        .path("count")
                        .asLong())
                .isGreaterThanOrEqualTo(3);
        assertThat(callback("nope", body, "sim-secret").status()).isEqualTo(404);
    }

    @Test
    void aBodyThatIsNotJsonIsStoredAndParkedWithItsRawBody() {
        String raw = "stat:DELIVRD id:p1 <not json>";
        ApiResponse r = callback("sim", raw, "sim-secret");
        assertThat(r.status()).isEqualTo(200);
        long inboxId = r.json().get("stored").asLong();
        JsonNode parked = awaitParked(inboxId);
        assertThat(parked.get("reason").asText()).isEqualTo("body is not JSON");
        assertThat(parked.get("body").asText()).isEqualTo(raw);
        assertThat(parked.get("gateway").asText()).isEqualTo("sim");
    }

    /**
     * Issue 24, item 15: a NUL in errorCode was dropped and a lone surrogate stored as '?', and the receipt recorded as
     * if the provider had sent that. Now the callback is parked, raw, and the message waits for an admin or a clean one.
     */
    @Test
    void aReceiptWithTextThatCannotBeStoredAsSentIsParkedNotRecordedChanged() {
        SERVICE.simulator()
                .updateConfig(NORMAL.toBuilder().receiptMode(ReceiptMode.NONE).build());
        String id = Messages.submitOne(SERVICE, Messages.recipient());
        Messages.awaitStatus(SERVICE, id, "SENT", Duration.ofSeconds(30));
        String providerId = message(id).get("providerId").asText();
        String head =
                "{\"id\":\"" + providerId + "\",\"reference\":\"" + id + "\",\"status\":\"UNDELIV\",\"timestamp\":\"";
        List<String> bodies = List.of(
                head + "2612011201\",\"errorCode\":\"E\\u000042\"}",
                head + "2612011202\",\"errorCode\":\"E\\ud80042\"}",
                head + "2612011203\",\"errorCode\":42}");
        for (String body : bodies) {
            ApiResponse r = callback("sim", body, "sim-secret");
            assertThat(r.status()).as(r.raw()).isEqualTo(200);
            JsonNode parked = awaitParked(r.json().get("stored").asLong());
            assertThat(parked.get("reason").asText()).as(body).contains("errorCode");
            assertThat(parked.get("body").asText()).isEqualTo(body);
            assertThat(parked.get("messageId").asText()).isEqualTo(id);
        }
        assertThat(receipts(id)).isEmpty();
        assertThat(message(id).get("status").asText()).isEqualTo("SENT");
        assertThat(SERVICE.admin()
                        .get("/metrics", null)
                        .json()
                        .path("counters")
                        .path("callbacks.parked.bad-text")
                        .path("count")
                        .asLong())
                .isGreaterThanOrEqualTo(2);
    }

    @Test
    void anUnmappedStatusOrUnparseableTimestampIsParkedNeverGuessed() {
        SERVICE.simulator()
                .updateConfig(NORMAL.toBuilder()
                        .unknownStatusRate(1.0)
                        .intermediateReceipts(0)
                        .build());
        String unmapped = Messages.submitOne(SERVICE, Messages.recipient());
        Messages.awaitStatus(SERVICE, unmapped, "SENT", Duration.ofSeconds(30));
        SERVICE.simulator()
                .updateConfig(NORMAL.toBuilder()
                        .badTimestampRate(1.0)
                        .intermediateReceipts(0)
                        .build());
        String badTime = Messages.submitOne(SERVICE, Messages.recipient());
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            List<String> reasons = new ArrayList<>();
            SERVICE.api()
                    .get("/v1/admin/parked?limit=500", "support-1")
                    .json()
                    .get("items")
                    .forEach(p -> reasons.add(p.get("reason").asText()));
            assertThat(reasons).contains("unmapped status MYSTERY_STATE");
            assertThat(reasons).anyMatch(x -> x.startsWith("unparseable timestamp"));
        });
        assertThat(receipts(unmapped)).isEmpty();
        assertThat(receipts(badTime)).isEmpty();
        assertThat(message(badTime).get("status").asText()).isEqualTo("SENT");
        assertThat(SERVICE.api().get("/v1/admin/parked", "client-a").status()).isEqualTo(403);
    }

    @Test
    void aParkedReceiptCanBeAppliedOrDiscardedByAnAdminAndItIsRecorded() {
        SERVICE.simulator()
                .updateConfig(NORMAL.toBuilder()
                        .unknownStatusRate(1.0)
                        .intermediateReceipts(0)
                        .build());
        String id = Messages.submitOne(SERVICE, Messages.recipient());
        Messages.awaitStatus(SERVICE, id, "SENT", Duration.ofSeconds(30));
        JsonNode parked = await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> {
                            for (JsonNode p : SERVICE.api()
                                    .get("/v1/admin/parked?limit=500", "support-1")
                                    .json()
                                    .get("items")) {
                                if (p.path("messageId").asText().equals(id)
                                        || p.path("body").asText().contains(id)) {
                                    return p;
                                }
                            }
                            return null;
                        },
                        p -> p != null);
        long parkedId = parked.get("id").asLong();
        assertThat(SERVICE.api()
                        .post(
                                "/v1/admin/parked/" + parkedId + "/resolve",
                                "support-1",
                                "{\"action\":\"apply\",\"status\":\"DELIVERED\"}")
                        .status())
                .isEqualTo(403);
        ApiResponse applied = SERVICE.api()
                .post(
                        "/v1/admin/parked/" + parkedId + "/resolve",
                        "admin-1",
                        "{\"action\":\"apply\",\"status\":\"DELIVERED\"}");
        assertThat(applied.status()).as(applied.raw()).isEqualTo(200);
        assertThat(message(id).get("status").asText()).isEqualTo("DELIVERED");
        JsonNode last = null;
        for (JsonNode e : SERVICE.api()
                .get("/v1/messages/" + id + "/events", "support-1")
                .json()
                .get("events")) {
            last = e;
        }
        assertThat(last.get("type").asText()).isEqualTo("RESOLVED");
        assertThat(last.get("actor").asText()).isEqualTo("admin:ops-admin");
        assertThat(SERVICE.api()
                        .post(
                                "/v1/admin/parked/" + parkedId + "/resolve",
                                "admin-1",
                                "{\"action\":\"discard\",\"note\":\"again\"}")
                        .status())
                .isEqualTo(409);

        long other = awaitParked(callback("sim", "garbage", "sim-secret")
                        .json()
                        .get("stored")
                        .asLong())
                .get("id")
                .asLong();
        assertThat(SERVICE.api()
                        .post(
                                "/v1/admin/parked/" + other + "/resolve",
                                "admin-1",
                                "{\"action\":\"apply\",\"status\":\"DELIVERED\"}")
                        .status())
                .as("nothing to apply it to")
                .isEqualTo(409);
        assertThat(SERVICE.api()
                        .post(
                                "/v1/admin/parked/" + other + "/resolve",
                                "admin-1",
                                "{\"action\":\"discard\",\"note\":\"test noise\"}")
                        .status())
                .isEqualTo(200);
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT count(*) FROM parked_resolutions WHERE parked_id = " + other
                                + " AND note = 'test noise'"))
                .isEqualTo(1);
    }

    @Test
    void duplicatedReceiptsChangeNothingTheSecondTimeAndLateIntermediatesDoNotUndoAFinal() {
        long replayedBefore = replayed();
        SERVICE.simulator()
                .updateConfig(NORMAL.toBuilder()
                        .receiptMode(ReceiptMode.DUPLICATED)
                        .intermediateReceipts(0)
                        .build());
        String duplicated = Messages.submitOne(SERVICE, Messages.recipient());
        await().atMost(Duration.ofSeconds(30))
                .until(() -> !message(duplicated).get("providerId").isNull());
        SERVICE.simulator()
                .updateConfig(
                        NORMAL.toBuilder().receiptMode(ReceiptMode.OUT_OF_ORDER).build());
        String outOfOrder = Messages.submitOne(SERVICE, Messages.recipient());
        Messages.awaitStatus(SERVICE, duplicated, "DELIVERED", Duration.ofSeconds(30));
        Messages.awaitStatus(SERVICE, outOfOrder, "DELIVERED", Duration.ofSeconds(30));
        // The simulator sends the final receipt twice, byte for byte: stored once (the second is answered with the row
        // that holds it), decided once.
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(replayed()).isEqualTo(replayedBefore + 1));
        assertThat(receipts(duplicated)).hasSize(1);
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT count(*) FROM callback_outcomes WHERE message_id = '" + duplicated + "'"))
                .isEqualTo(1);
        // The simulator sends the final first, but two callbacks in flight at once may be recorded in either order;
        // whichever comes second, the status stays DELIVERED (the fold's property tests cover every order).
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(receipts(outOfOrder))
                        .extracting(r -> r.get("kind").asText())
                        .containsExactlyInAnyOrder("DELIVERED", "INTERMEDIATE"));
        assertThat(message(outOfOrder).get("status").asText()).isEqualTo("DELIVERED");
    }

    @Test
    void receiptsMatchTheRightMessageWhenProviderIdsWrap() {
        SERVICE.simulator().updateConfig(NORMAL.toBuilder().idWrapModulus(3).build());
        List<String> ids = Messages.submit(SERVICE, 30);
        for (String id : ids) {
            Messages.awaitStatus(SERVICE, id, "DELIVERED", Duration.ofSeconds(60));
            assertThat(receipts(id))
                    .allSatisfy(r -> assertThat(r.get("providerId").asText())
                            .isEqualTo(message(id).get("providerId").asText()));
        }
        // Without our reference echoed, the most recent use of the id on the gateway is the match: of four messages
        // over three wrapping ids, the receipt for the first id goes to the fourth message, the one that uses it now.
        SERVICE.simulator()
                .updateConfig(NORMAL.toBuilder()
                        .idWrapModulus(3)
                        .receiptMode(ReceiptMode.NONE)
                        .build());
        List<String> wrapped = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            String id = Messages.submitOne(SERVICE, Messages.recipient());
            Messages.awaitStatus(SERVICE, id, "SENT", Duration.ofSeconds(30));
            wrapped.add(id);
        }
        assertThat(message(wrapped.get(3)).get("providerId").asText())
                .isEqualTo(message(wrapped.get(0)).get("providerId").asText());
        for (int i = 1; i < 4; i++) {
            String providerId = message(wrapped.get(i)).get("providerId").asText();
            assertThat(callback(
                                    "sim",
                                    "{\"id\":\"" + providerId + "\",\"status\":\"DELIVRD\",\"timestamp\":\"26120212000"
                                            + i + "\"}",
                                    "sim-secret")
                            .status())
                    .isEqualTo(200);
        }
        for (int i = 1; i < 4; i++) {
            Messages.awaitStatus(SERVICE, wrapped.get(i), "DELIVERED", Duration.ofSeconds(30));
        }
        assertThat(message(wrapped.get(0)).get("status").asText())
                .as("an older use of the id")
                .isEqualTo("SENT");
    }

    @Test
    void aReceiptArrivingBeforeOurAcceptanceIsWrittenIsHeldAndMatchedLater() {
        SERVICE.simulator()
                .updateConfig(NORMAL.toBuilder()
                        .intermediateReceipts(0)
                        .receiptDelayMs(0)
                        .build());
        SERVICE.faults().arm(FaultPoint.BETWEEN_PROVIDER_ANSWER_AND_WRITE, 1);
        String id = Messages.submitOne(SERVICE, Messages.recipient());
        await().atMost(Duration.ofSeconds(30))
                .until(() -> SERVICE.admin()
                                .get("/metrics", null)
                                .json()
                                .path("counters")
                                .path("callbacks.held.for.late.match")
                                .path("count")
                                .asLong()
                        >= 1);
        assertThat(receipts(id)).isEmpty();
        // The claim deadline re-drives the message; the same key gets the same id; the acceptance is recorded;
        // the held receipt, brought back by the sweeper, now matches.
        Messages.awaitAdvancing(
                SERVICE,
                Duration.ofSeconds(6),
                Duration.ofSeconds(90),
                () -> assertThat(message(id).get("status").asText()).isEqualTo("DELIVERED"));
        assertThat(receipts(id)).hasSize(1);
        assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM parked_input WHERE message_id = '" + id + "'"))
                .isZero();
    }

    @Test
    void withoutAFinalReceiptReconciliationSaysUnknownNeverUndeliveredAndALateFinalStillWins() {
        SERVICE.simulator()
                .updateConfig(NORMAL.toBuilder()
                        .receiptMode(ReceiptMode.INTERMEDIATE_ONLY)
                        .build());
        List<String> ids = Messages.submit(SERVICE, 20);
        for (String id : ids) {
            Messages.awaitStatus(SERVICE, id, "IN_TRANSIT", Duration.ofSeconds(30));
        }
        SERVICE.clock().advance(Duration.ofMinutes(61));
        for (String id : ids) {
            Messages.awaitStatus(SERVICE, id, "UNKNOWN", Duration.ofSeconds(30));
        }
        String in = "'" + String.join("','", ids) + "'";
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT count(*) FROM message_events WHERE type = 10 AND message_id IN (" + in + ")"))
                .isEqualTo(20);
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT count(*) FROM message_events WHERE status = 3 AND tenant = 'acme' "
                                + "AND message_id IN (" + in + ")"))
                .as("found by search as UNKNOWN")
                .isEqualTo(20);
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT count(*) FROM message_events WHERE status = 2 AND message_id IN (" + in + ")"))
                .as("never UNDELIVERED")
                .isZero();
        assertThat(SERVICE.admin()
                        .get("/metrics", null)
                        .json()
                        .path("counters")
                        .path("messages.unknown")
                        .path("count")
                        .asLong())
                .isGreaterThanOrEqualTo(20);

        String late = ids.getFirst();
        String providerId = message(late).get("providerId").asText();
        ApiResponse r = callback(
                "sim",
                "{\"id\":\"" + providerId + "\",\"reference\":\"" + late
                        + "\",\"status\":\"DELIVRD\",\"timestamp\":\"2611300931\"}",
                "sim-secret");
        assertThat(r.status()).isEqualTo(200);
        Messages.awaitStatus(SERVICE, late, "DELIVERED", Duration.ofSeconds(30));
    }

    @Test
    void everyStoredCallbackEndsAsAnEventAParkedRowOrARecordedDuplicate() {
        String id = Messages.submitOne(SERVICE, Messages.recipient());
        Messages.awaitStatus(SERVICE, id, "DELIVERED", Duration.ofSeconds(30));
        callback("sim", "{}", "sim-secret");
        // Receipts held for a late match get their outcome when the hold window ends (parked as unmatched or
        // ambiguous).
        SERVICE.clock().advance(Duration.ofMinutes(11));
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(
                                Sql.count(
                                        SERVICE.dataSource(),
                                        "SELECT count(*) FROM callback_inbox i WHERE NOT EXISTS (SELECT 1 FROM callback_outcomes o WHERE o.inbox_id = i.id)"))
                        .isZero());
        assertThat(
                        Sql.count(
                                SERVICE.dataSource(),
                                "SELECT count(*) FROM callback_outcomes o WHERE outcome = 'appended' AND NOT EXISTS "
                                        + "(SELECT 1 FROM message_events e WHERE e.message_id = o.message_id AND e.seq = o.event_seq AND e.type = 9)"))
                .isZero();
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT count(*) FROM callback_outcomes o WHERE outcome = 'parked' AND NOT EXISTS "
                                + "(SELECT 1 FROM parked_input p WHERE p.inbox_id = o.inbox_id)"))
                .isZero();
    }

    private static JsonNode awaitParked(long inboxId) {
        return await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> {
                            long parkedId = Sql.count(
                                    SERVICE.dataSource(),
                                    "SELECT coalesce(max(id), -1) FROM parked_input WHERE inbox_id = " + inboxId);
                            if (parkedId < 0) {
                                return null;
                            }
                            for (JsonNode p : SERVICE.api()
                                    .get("/v1/admin/parked?limit=500", "support-1")
                                    .json()
                                    .get("items")) {
                                if (p.get("id").asLong() == parkedId) {
                                    return p;
                                }
                            }
                            return null;
                        },
                        p -> p != null);
    }
}
