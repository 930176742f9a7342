package dev.sendlog.service.send.provider.smpp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.simulator.smpp.SmscConfig;
import dev.sendlog.simulator.smpp.SmscIdFormat;
import dev.sendlog.simulator.smpp.SmscReceipts;
import dev.sendlog.simulator.smpp.SmscSimulator;
import dev.sendlog.simulator.smpp.SmscSubmit;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * SMPP gateways end to end (issue 28): the application binds to the SMSC simulator over real TCP, submits through the
 * API reach it as submit_sm, its deliver_sm receipts are stored and move the messages, and each SMSC answer has the
 * outcome docs/api.md ("SMPP gateways") gives it.
 */
class SmppGatewayTest {
    private static final SmscConfig BASE =
            SmscConfig.defaults().toBuilder().latencyMs(5).receiptDelayMs(20).build();
    private static final SmscSimulator SMSC = smsc(BASE);
    /** An SMSC whose receipts write the hex message id in decimal. */
    private static final SmscSimulator DECIMAL = smsc(BASE.toBuilder()
            .idFormat(SmscIdFormat.HEX)
            .receiptIdDecimal(true)
            .firstId(0xABC)
            .build());

    @RegisterExtension
    static final ServiceHarness SERVICE =
            new ServiceHarness("receipts.storeTimeout", "1s").configure(SmppGatewayTest::gateways);

    private static SmscSimulator smsc(SmscConfig config) {
        try {
            return SmscSimulator.start(config, 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void gateways(ObjectNode config) {
        ObjectNode gateways = (ObjectNode) config.get("gateways");
        // A contracted rate far above what the tests send: a throttle answer slows it, shared through Redis.
        smpp(gateways, "smsc", SMSC.port(), "as-is").put("maxPerSecond", 200);
        // Mostly idle between its messages: its binds live on enquire_link.
        ((ObjectNode) smpp(gateways, "smsc-dec", DECIMAL.port(), "hex-to-decimal")
                        .get("smpp"))
                .put("enquireLinkInterval", "300ms");
    }

    private static ObjectNode smpp(ObjectNode gateways, String name, int port, String idFormat) {
        ObjectNode g = gateways.putObject(name)
                .put("type", "smpp")
                .put("vocabulary", "smpp")
                .put("requestTimeoutMs", 1_500)
                .put("downAfterFailures", 0);
        g.putObject("smpp")
                .put("host", "127.0.0.1")
                .put("port", port)
                .put("systemId", "sendlog")
                .put("password", "secret")
                .put("sessions", 2)
                .put("window", 4)
                .put("reconnectMin", "50ms")
                .put("reconnectMax", "200ms")
                .put("idFormat", idFormat);
        return g;
    }

    @AfterEach
    void reset() {
        SMSC.reconfigure(BASE);
        SMSC.refuseBinds(false);
        DECIMAL.reconfigure(
                DECIMAL.config().toBuilder().enquireLinkResponse(true).build());
    }

    @AfterAll
    static void stopSmscs() {
        SMSC.close();
        DECIMAL.close();
    }

    private static String submit(String gateway, String to, String body) {
        ApiResponse r = SERVICE.api()
                .post(
                        "/v1/messages",
                        "client-a",
                        "{\"to\":\"" + to + "\",\"body\":\"" + body + "\",\"gateway\":\"" + gateway + "\"}");
        assertThat(r.status()).as(r.raw()).isEqualTo(202);
        return r.json().get("id").asText();
    }

    private static List<SmscSubmit> submitsTo(SmscSimulator smsc, String to) {
        return smsc.submits().stream()
                .filter(s -> s.destAddr().equals(to.substring(1)))
                .toList();
    }

    private static List<String> accepted(String id) {
        List<String> ids = new ArrayList<>();
        for (JsonNode e : Messages.history(SERVICE, id)) {
            if (e.get("type").asText().equals("PROVIDER_ACCEPTED")) {
                ids.add(e.get("data").get("providerId").asText());
            }
        }
        return ids;
    }

    @Test
    void aMessageGoesOutAsASubmitSmAndItsDeliverSmReceiptDeliversIt() {
        String to = Messages.recipient();
        String id = submit("smsc", to, "code 4711");
        Messages.awaitStatus(SERVICE, id, "DELIVERED", Duration.ofSeconds(30));
        List<SmscSubmit> submits = submitsTo(SMSC, to);
        assertThat(submits).singleElement().satisfies(s -> {
            assertThat(s.text()).isEqualTo("code 4711");
            assertThat(s.dataCoding()).isEqualTo((byte) 0);
            assertThat(s.registeredDelivery() & 0x03).isEqualTo(1);
            assertThat(s.destAddr()).isEqualTo(to.substring(1));
        });
        assertThat(accepted(id)).containsExactly(submits.getFirst().messageId());
        assertThat(Messages.events(SERVICE, id, "RECEIPT")).isEqualTo(1);
    }

    @Test
    void theMessagesValidityAndSenderIdGoInTheSubmitSm() {
        String to = Messages.recipient();
        ApiResponse r = SERVICE.api()
                .post(
                        "/v1/messages",
                        "client-a",
                        "{\"to\":\"" + to + "\",\"body\":\"valid\",\"gateway\":\"smsc\",\"ttlSeconds\":3600,"
                                + "\"from\":\"+4930123456\"}");
        assertThat(r.status()).as(r.raw()).isEqualTo(202);
        String id = r.json().get("id").asText();
        Messages.awaitStatus(SERVICE, id, "DELIVERED", Duration.ofSeconds(30));
        java.time.Instant until = java.time.Instant.parse(SERVICE.api()
                .get("/v1/messages/" + id, "client-a")
                .json()
                .get("validUntil")
                .asText());
        SmscSubmit submit = submitsTo(SMSC, to).getFirst();
        assertThat(submit.validityPeriod())
                .isEqualTo(java.time.format.DateTimeFormatter.ofPattern("yyMMddHHmmss")
                                .withZone(java.time.ZoneOffset.UTC)
                                .format(until)
                        + "000+");
        assertThat(submit.sourceAddr()).isEqualTo("4930123456");
        assertThat(submit.sourceTon()).isEqualTo((byte) 1);
        assertThat(submit.sourceNpi()).isEqualTo((byte) 1);
    }

    @Test
    void aLongUnicodeBodyGoesAsUdhPartsAndIsDeliveredOnlyWhenEveryPartIs() {
        String body = "日本語のメッセージ".repeat(12); // 108 UTF-16 units: two UCS-2 parts of at most 67
        String to = Messages.recipient();
        String id = submit("smsc", to, body);
        Messages.awaitStatus(SERVICE, id, "DELIVERED", Duration.ofSeconds(30));
        List<SmscSubmit> parts = submitsTo(SMSC, to);
        assertThat(parts).hasSize(2);
        assertThat(parts).allSatisfy(p -> {
            assertThat(p.dataCoding()).isEqualTo((byte) 8);
            assertThat(p.partCount()).isEqualTo(2);
            assertThat(p.concatRef()).isEqualTo(parts.getFirst().concatRef());
        });
        assertThat(parts).extracting(SmscSubmit::partNumber).containsExactly(1, 2);
        assertThat(parts.get(0).text() + parts.get(1).text()).isEqualTo(body);
        assertThat(accepted(id))
                .containsExactly(parts.get(0).messageId(), parts.get(1).messageId());
        JsonNode message = SERVICE.api().get("/v1/messages/" + id, "client-a").json();
        assertThat(message.get("segments").asInt()).isEqualTo(2);
    }

    @Test
    void aPartWhoseReceiptNeverComesLeavesTheMessageInTransitNotDelivered() {
        SMSC.reconfigure(BASE.toBuilder().receiptPartsOnly(1).build());
        String to = Messages.recipient();
        String id = submit("smsc", to, "x".repeat(200)); // two GSM parts
        Messages.awaitStatus(SERVICE, id, "IN_TRANSIT", Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() ->
                        assertThat(Messages.events(SERVICE, id, "RECEIPT")).isEqualTo(1));
        assertThat(submitsTo(SMSC, to)).hasSize(2);
        assertThat(SERVICE.api()
                        .get("/v1/messages/" + id, "client-a")
                        .json()
                        .get("status")
                        .asText())
                .isEqualTo("IN_TRANSIT");
    }

    @Test
    void noSubmitSmRespInTimeMakesTheMessageUnknownAndItIsNotSubmittedAgain() {
        SMSC.reconfigure(BASE.toBuilder().loseResponseRate(1.0).build());
        String to = Messages.recipient();
        String id = submit("smsc", to, "lost answer");
        Messages.awaitStatus(SERVICE, id, "UNKNOWN", Duration.ofSeconds(30));
        JsonNode message = SERVICE.api().get("/v1/messages/" + id, "support-1").json();
        assertThat(message.get("lastError").asText()).contains("submit_sm_resp").contains("not submitted again");
        // Time passes for the timers: nothing re-drives an UNKNOWN message, the SMSC saw one submit.
        SERVICE.clock().advance(Duration.ofMinutes(10));
        assertThat(Messages.events(SERVICE, id, "ATTEMPT_FAILED")).isZero();
        assertThat(Messages.events(SERVICE, id, "CLAIMED")).isEqualTo(1);
        assertThat(submitsTo(SMSC, to)).hasSize(1);
    }

    @Test
    void throttlingAnswersSlowTheGatewayDownWithoutUsingAnAttempt() {
        SMSC.reconfigure(BASE.toBuilder().maxPerSecond(2).build());
        long throttledBefore = SMSC.stats().throttled();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            ids.add(submit("smsc", Messages.recipient(), "burst " + i));
        }
        for (String id : ids) {
            Messages.awaitStatus(SERVICE, id, "DELIVERED", Duration.ofSeconds(60));
            assertThat(Messages.events(SERVICE, id, "ATTEMPT_FAILED")).isZero();
            assertThat(Messages.events(SERVICE, id, "CLAIMED")).isEqualTo(1);
        }
        assertThat(SMSC.stats().throttled()).isGreaterThan(throttledBefore);
        // The gateway's shared rate heard it: every process slows to throttledShare of maxPerSecond for a while.
        assertThat(SERVICE.counter("gateway.smsc.rate.throttles")).isPositive();
    }

    @Test
    void aBindWhoseEnquireLinkGoesUnansweredIsDroppedAndBoundAgain() {
        String to = Messages.recipient();
        Messages.awaitStatus(SERVICE, submit("smsc-dec", to, "before"), "DELIVERED", Duration.ofSeconds(30));
        long bindsBefore = DECIMAL.stats().bindsAccepted();
        long linksBefore = DECIMAL.stats().enquireLinks();
        DECIMAL.reconfigure(
                DECIMAL.config().toBuilder().enquireLinkResponse(false).build());
        await().atMost(Duration.ofSeconds(30)).until(() -> DECIMAL.stats().bindsAccepted() > bindsBefore);
        assertThat(DECIMAL.stats().enquireLinks()).isGreaterThan(linksBefore);
        DECIMAL.reconfigure(
                DECIMAL.config().toBuilder().enquireLinkResponse(true).build());
        await().atMost(Duration.ofSeconds(10))
                .until(() -> !SERVICE.healthMessage("smpp-smsc-dec").startsWith("DOWN"));
        Messages.awaitStatus(
                SERVICE, submit("smsc-dec", Messages.recipient(), "after"), "DELIVERED", Duration.ofSeconds(30));
    }

    @Test
    void aFullMessageQueueAtTheSmscIsAThrottleNotAFailedAttempt() {
        SMSC.reconfigure(BASE.toBuilder().queueFullEvery(2).build());
        long queueFullBefore = SMSC.stats().queueFull();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ids.add(submit("smsc", Messages.recipient(), "queue " + i));
        }
        for (String id : ids) {
            Messages.awaitStatus(SERVICE, id, "DELIVERED", Duration.ofSeconds(60));
            assertThat(Messages.events(SERVICE, id, "ATTEMPT_FAILED")).isZero();
        }
        assertThat(SMSC.stats().queueFull()).isGreaterThan(queueFullBefore);
    }

    @Test
    void noReceiptsAtAllLeaveTheMessageSent() {
        SMSC.reconfigure(BASE.toBuilder().receipts(SmscReceipts.NONE).build());
        String id = submit("smsc", Messages.recipient(), "no receipt");
        Messages.awaitStatus(SERVICE, id, "SENT", Duration.ofSeconds(30));
        // The reconciliation window (test-config: 1 h) ends with no receipt: UNKNOWN, never "failed".
        Messages.awaitStatusAdvancing(SERVICE, id, "UNKNOWN", Duration.ofMinutes(10), Duration.ofSeconds(60));
    }

    @Test
    void bindsThatDropAreBoundAgainAndTheHealthCheckSaysDownWhileNoneIsUp() {
        await().atMost(Duration.ofSeconds(10))
                .until(() -> SERVICE.healthMessage("smpp-smsc").startsWith("2 of 2 binds up"));
        long bindsBefore = SMSC.stats().bindsAccepted();
        SMSC.refuseBinds(true);
        SMSC.dropBinds();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> SERVICE.healthMessage("smpp-smsc").startsWith("DOWN: 0 of 2 binds up"));
        // An SMSC that is down is the provider's trouble: the process still takes and passes on work.
        assertThat(SERVICE.healthy("smpp-smsc")).isTrue();
        assertThat(SERVICE.healthMessage("smpp-smsc")).contains("Bind Failed");
        // While no bind is up the SMSC certainly does not get a message: a refusal before acceptance, retried later.
        String early = submit("smsc", Messages.recipient(), "while no bind is up");
        Messages.awaitStatus(SERVICE, early, "RETRYING", Duration.ofSeconds(30));
        assertThat(Messages.history(SERVICE, early))
                .anySatisfy(
                        e -> assertThat(e.path("data").path("error").asText()).contains("no SMPP bind up"));
        SMSC.refuseBinds(false);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> !SERVICE.healthMessage("smpp-smsc").startsWith("DOWN"));
        String id = submit("smsc", Messages.recipient(), "after the drop");
        Messages.awaitStatus(SERVICE, id, "DELIVERED", Duration.ofSeconds(30));
        Messages.awaitStatusAdvancing(SERVICE, early, "DELIVERED", Duration.ofSeconds(30), Duration.ofSeconds(60));
        assertThat(SMSC.stats().bindsAccepted()).isGreaterThanOrEqualTo(bindsBefore + 1);
    }

    @Test
    void receiptsThatWriteTheIdInDecimalFindTheirMessageUnderTheGatewaysIdFormat() {
        String to = Messages.recipient();
        String id = submit("smsc-dec", to, "decimal receipts");
        Messages.awaitStatus(SERVICE, id, "DELIVERED", Duration.ofSeconds(30));
        String hex = submitsTo(DECIMAL, to).getFirst().messageId();
        assertThat(accepted(id)).containsExactly(String.valueOf(Long.parseLong(hex, 16)));
    }

    @Test
    void aReceiptIsAnsweredOnlyOnceStoredAndOneThatCannotBeStoredIsRefusedAndSentAgain() throws Exception {
        String to = Messages.recipient();
        long refusedBefore = SMSC.stats().receiptsRefused();
        long ackedBefore = SMSC.stats().receiptsAcked();
        String id;
        // While the inbox cannot be written, the receipt is answered ESME_RX_T_APPN: the SMSC keeps it and tries again.
        try (java.sql.Connection lock =
                dev.sendlog.service.support.Sql.lockExclusively(SERVICE.dataSource(), "callback_inbox")) {
            id = submit("smsc", to, "stored before answered");
            await().atMost(Duration.ofSeconds(30)).until(() -> SMSC.stats().receiptsRefused() > refusedBefore);
            assertThat(SMSC.stats().receiptsAcked()).isEqualTo(ackedBefore);
            // Submits are not held up behind a receipt waiting for its store.
            String other = submit("smsc", Messages.recipient(), "submitted meanwhile");
            Messages.awaitStatus(SERVICE, other, "SENT", Duration.ofSeconds(30));
        }
        Messages.awaitStatus(SERVICE, id, "DELIVERED", Duration.ofSeconds(30));
        assertThat(SMSC.stats().receiptsAcked()).isGreaterThan(ackedBefore);
    }

    @Test
    void aReceiptThatComesBeforeTheSubmitResponseStillDeliversTheMessage() {
        SMSC.reconfigure(BASE.toBuilder().receiptBeforeResponse(true).build());
        String id = submit("smsc", Messages.recipient(), "early receipt");
        Messages.awaitStatus(SERVICE, id, "DELIVERED", Duration.ofSeconds(30));
    }

    @Test
    void anUnknownStatWordIsParkedWithTheRawPduAndTheMessageStaysSent() {
        SMSC.reconfigure(BASE.toBuilder().finalStatus("WEIRD").build());
        String to = Messages.recipient();
        String id = submit("smsc", to, "weird receipt");
        Messages.awaitStatus(SERVICE, id, "SENT", Duration.ofSeconds(30));
        String smscId = submitsTo(SMSC, to).getFirst().messageId();
        JsonNode parked = await().atMost(Duration.ofSeconds(30)).until(() -> parkedFor(smscId), p -> p != null);
        assertThat(parked.get("reason").asText()).isEqualTo("unmapped status WEIRD");
        assertThat(parked.get("body").asText()).contains("shortMessage").contains("stat:WEIRD");
        assertThat(SERVICE.api()
                        .get("/v1/messages/" + id, "client-a")
                        .json()
                        .get("status")
                        .asText())
                .isEqualTo("SENT");
    }

    @Test
    void intermediateReceiptsOnlyLeaveTheMessageInTransit() {
        SMSC.reconfigure(
                BASE.toBuilder().receipts(SmscReceipts.INTERMEDIATE_ONLY).build());
        String id = submit("smsc", Messages.recipient(), "enroute only");
        Messages.awaitStatus(SERVICE, id, "IN_TRANSIT", Duration.ofSeconds(30));
    }

    /** The parked receipt whose body names {@code smscId}, the SMSC's id of the message. */
    private static JsonNode parkedFor(String smscId) {
        for (JsonNode p : SERVICE.api()
                .get("/v1/admin/parked?limit=500", "support-1")
                .json()
                .get("items")) {
            if (p.path("gateway").asText().equals("smsc")
                    && p.path("body").asText().contains("\"id\":\"" + smscId + "\"")) {
                return p;
            }
        }
        return null;
    }
}
