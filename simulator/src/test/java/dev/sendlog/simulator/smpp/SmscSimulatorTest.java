package dev.sendlog.simulator.smpp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jsmpp.SMPPConstant;
import org.jsmpp.bean.BindType;
import org.jsmpp.bean.DeliverSm;
import org.jsmpp.bean.OptionalParameter;
import org.jsmpp.extra.NegativeResponseException;
import org.jsmpp.extra.ResponseTimeoutException;
import org.jsmpp.extra.SessionState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SmscSimulatorTest {
    private static final SmscConfig FAST =
            SmscConfig.builder().receiptDelayMs(0).build();
    private static final Duration WAIT = Duration.ofSeconds(5);
    private static final String RECEIPT_DATE = "\\d{10}";

    private SmscSimulator smsc;
    private final List<TestEsme> esmes = new ArrayList<>();

    private void start(SmscConfig config) throws IOException {
        smsc = SmscSimulator.start(config, 0);
    }

    private TestEsme bind() throws IOException {
        return keep(TestEsme.bind(smsc));
    }

    private TestEsme keep(TestEsme esme) {
        esmes.add(esme);
        return esme;
    }

    @AfterEach
    void stop() {
        esmes.forEach(TestEsme::close);
        if (smsc != null) {
            smsc.close();
        }
    }

    /** The command_status of the negative response the action got. */
    private static int refusal(ThrowingAction action) {
        try {
            action.run();
        } catch (NegativeResponseException e) {
            return e.getCommandStatus();
        } catch (IOException e) {
            if (e.getCause() instanceof NegativeResponseException negative) {
                return negative.getCommandStatus();
            }
            fail("expected a negative response, got " + e);
        } catch (Exception e) {
            fail("expected a negative response, got " + e);
        }
        return fail("expected a negative response, got success");
    }

    @FunctionalInterface
    private interface ThrowingAction {
        void run() throws Exception;
    }

    private void awaitReceiptsSettled(long acked) {
        await().atMost(WAIT)
                .until(() ->
                        smsc.stats().receiptsAcked() == acked && smsc.stats().receiptsPending() == 0);
    }

    @Test
    void bindsWithAnotherSystemIdOrPasswordOrWhileRefusingAreRefused() throws Exception {
        start(FAST);

        assertThat(refusal(() -> TestEsme.bind(smsc, BindType.BIND_TRX, "sendlog", "wrong", 2_000)))
                .isEqualTo(SMPPConstant.STAT_ESME_RINVPASWD);
        assertThat(refusal(() -> TestEsme.bind(smsc, BindType.BIND_TRX, "intruder", "secret", 2_000)))
                .isEqualTo(SMPPConstant.STAT_ESME_RINVSYSID);
        smsc.refuseBinds(true);
        assertThat(refusal(() -> TestEsme.bind(smsc, BindType.BIND_TRX, "sendlog", "secret", 2_000)))
                .isEqualTo(SMPPConstant.STAT_ESME_RBINDFAIL);
        smsc.refuseBinds(false);
        TestEsme esme = bind();

        assertThat(esme.session.getSessionState()).isEqualTo(SessionState.BOUND_TRX);
        SmscStats stats = smsc.stats();
        assertThat(stats.bindsRefused()).isEqualTo(3);
        assertThat(stats.bindsAccepted()).isEqualTo(1);
        assertThat(stats.sessionsBound()).isEqualTo(1);
    }

    @Test
    void anAcceptedSubmitGetsAHexIdAndOneFinalReceiptOnTheTransceiver() throws Exception {
        start(FAST.toBuilder().firstId(0xABC).build());
        TestEsme esme = bind();

        String id = esme.submitText("Hello from sendlog!! and the rest");

        assertThat(id).isEqualTo("abc");
        awaitReceiptsSettled(1);
        assertThat(esme.deliveries).hasSize(1);
        DeliverSm receipt = esme.deliveries.get(0);
        assertThat(receipt.isSmscDeliveryReceipt()).isTrue();
        assertThat(receipt.getEsmClass()).isEqualTo((byte) 0x04);
        assertThat(receipt.getDataCoding()).isEqualTo((byte) 0);
        assertThat(receipt.getSourceAddr()).isEqualTo(TestEsme.DEST);
        assertThat(receipt.getDestAddress()).isEqualTo(TestEsme.SOURCE);
        assertThat(TestEsme.text(receipt))
                .matches("id:abc sub:001 dlvrd:001 submit date:" + RECEIPT_DATE + " done date:" + RECEIPT_DATE
                        + " stat:DELIVRD err:000 text:Hello from sendlog!!");
        assertThat(TestEsme.receiptedId(receipt)).isEqualTo("abc");
        assertThat(TestEsme.messageState(receipt)).isEqualTo((byte) 2);

        assertThat(smsc.submits()).singleElement().satisfies(submit -> {
            assertThat(submit.messageId()).isEqualTo("abc");
            assertThat(submit.systemId()).isEqualTo("sendlog");
            assertThat(submit.sourceAddr()).isEqualTo(TestEsme.SOURCE);
            assertThat(submit.sourceTon()).isEqualTo((byte) 5);
            assertThat(submit.sourceNpi()).isEqualTo((byte) 0);
            assertThat(submit.destAddr()).isEqualTo(TestEsme.DEST);
            assertThat(submit.dataCoding()).isEqualTo((byte) 0);
            assertThat(submit.registeredDelivery()).isEqualTo((byte) 1);
            assertThat(submit.validityPeriod()).isEqualTo("000001000000000R");
            assertThat(submit.text()).isEqualTo("Hello from sendlog!! and the rest");
            assertThat(submit.concatRef()).isZero();
            assertThat(submit.partNumber()).isEqualTo(1);
            assertThat(submit.partCount()).isEqualTo(1);
            assertThat(submit.viaPayload()).isFalse();
        });
        SmscStats stats = smsc.stats();
        assertThat(stats.submits()).isEqualTo(1);
        assertThat(stats.accepted()).isEqualTo(1);
        assertThat(stats.receiptsSent()).isEqualTo(1);
        assertThat(stats.receiptsRefused()).isZero();
    }

    @Test
    void receiptIdDecimalCarriesTheHexIdAsADecimalNumberAndDecimalIdsCountOn() throws Exception {
        start(FAST.toBuilder().firstId(0xABC).receiptIdDecimal(true).build());
        TestEsme esme = bind();

        assertThat(esme.submitText("one")).isEqualTo("abc");
        awaitReceiptsSettled(1);
        DeliverSm receipt = esme.deliveries.get(0);
        assertThat(TestEsme.text(receipt)).startsWith("id:2748 ");
        assertThat(TestEsme.receiptedId(receipt)).isEqualTo("2748");

        smsc.reconfigure(
                smsc.config().toBuilder().idFormat(SmscIdFormat.DECIMAL).build());
        assertThat(esme.submitText("two")).isEqualTo("2749");
        awaitReceiptsSettled(2);
        assertThat(TestEsme.receiptedId(esme.deliveries.get(1))).isEqualTo("2749");
    }

    @Test
    void submitsAboveMaxPerSecondAreThrottledAndNotRecorded() throws Exception {
        start(FAST.toBuilder().maxPerSecond(2).receipts(SmscReceipts.NONE).build());
        TestEsme esme = bind();

        int throttled = 0;
        for (int i = 0; i < 8; i++) {
            try {
                esme.submitText("burst " + i);
            } catch (NegativeResponseException e) {
                assertThat(e.getCommandStatus()).isEqualTo(SMPPConstant.STAT_ESME_RTHROTTLED);
                throttled++;
            }
        }

        // A bucket of 2, refilled at 2 a second: a burst of 8 gets at most 2 more through in the time it takes.
        assertThat(throttled).isGreaterThanOrEqualTo(4);
        SmscStats stats = smsc.stats();
        assertThat(stats.throttled()).isEqualTo(throttled);
        assertThat(stats.accepted()).isEqualTo(8 - throttled);
        assertThat(stats.submits()).isEqualTo(8);
        assertThat(smsc.submits()).hasSize(8 - throttled);
    }

    @Test
    void everyNthSubmitFindsTheQueueFull() throws Exception {
        start(FAST.toBuilder().queueFullEvery(3).receipts(SmscReceipts.NONE).build());
        TestEsme esme = bind();

        List<String> outcomes = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            try {
                outcomes.add(esme.submitText("m" + i));
            } catch (NegativeResponseException e) {
                outcomes.add("0x" + Integer.toHexString(e.getCommandStatus()));
            }
        }

        assertThat(outcomes).containsExactly("1", "2", "0x14", "3", "4", "0x14");
        assertThat(smsc.stats().queueFull()).isEqualTo(2);
        assertThat(smsc.stats().accepted()).isEqualTo(4);
    }

    @Test
    void aLostResponseTimesTheClientOutButTheSubmitWasAcceptedAndIsReceipted() throws Exception {
        start(FAST.toBuilder().loseResponseRate(1.0).build());
        TestEsme esme = keep(TestEsme.bind(smsc, BindType.BIND_TRX, "sendlog", "secret", 300));

        try {
            esme.submitText("unknown outcome");
            fail("the response should have been lost");
        } catch (ResponseTimeoutException expected) {
            // The client cannot tell whether the message was accepted.
        }

        assertThat(smsc.submits()).singleElement().satisfies(submit -> {
            assertThat(submit.messageId()).isEqualTo("1");
            assertThat(submit.text()).isEqualTo("unknown outcome");
        });
        assertThat(smsc.stats().responsesLost()).isEqualTo(1);
        awaitReceiptsSettled(1);
        assertThat(TestEsme.receiptedId(esme.deliveries.get(0))).isEqualTo("1");

        smsc.reconfigure(smsc.config().toBuilder().loseResponseRate(0).build());
        assertThat(esme.submitText("answered")).isEqualTo("2");
    }

    @Test
    void aRefusedReceiptIsSentAgainUntilTheClientAcknowledgesIt() throws Exception {
        start(FAST);
        TestEsme esme = bind();
        esme.refuseNext.set(1);

        String id = esme.submitText("retry me");

        awaitReceiptsSettled(1);
        assertThat(esme.deliveries).hasSize(2);
        assertThat(esme.deliveries).extracting(TestEsme::receiptedId).containsOnly(id);
        assertThat(TestEsme.text(esme.deliveries.get(1))).isEqualTo(TestEsme.text(esme.deliveries.get(0)));
        assertThat(esme.acknowledged).hasSize(1);
        SmscStats stats = smsc.stats();
        assertThat(stats.receiptsSent()).isEqualTo(2);
        assertThat(stats.receiptsRefused()).isEqualTo(1);
        assertThat(stats.receiptsAcked()).isEqualTo(1);
    }

    @Test
    void dropBindsCutsTheSessionAndAReceiptOwedGoesToTheNextBind() throws Exception {
        start(FAST.toBuilder().receiptDelayMs(200).build());
        TestEsme first = bind();
        String id = first.submitText("before the cut");

        smsc.dropBinds();

        await().atMost(WAIT).until(() -> first.session.getSessionState() == SessionState.CLOSED);
        await().atMost(WAIT).until(() -> smsc.stats().sessionsBound() == 0);
        TestEsme second = bind();
        assertThat(smsc.stats().sessionsBound()).isEqualTo(1);
        assertThat(second.submitText("after the cut")).isEqualTo("2");
        awaitReceiptsSettled(2);
        assertThat(first.acknowledged).isEmpty();
        assertThat(second.acknowledged).extracting(TestEsme::receiptedId).containsExactlyInAnyOrder(id, "2");
    }

    @Test
    void receiptsGoToASessionBoundAsReceiverNotToTheTransmitter() throws Exception {
        start(FAST);
        TestEsme transmitter = keep(TestEsme.bind(smsc, BindType.BIND_TX, "sendlog", "secret", 2_000));
        TestEsme receiver = keep(TestEsme.bind(smsc, BindType.BIND_RX, "sendlog", "secret", 2_000));

        String id = transmitter.submitText("split binds");

        awaitReceiptsSettled(1);
        assertThat(receiver.acknowledged).extracting(TestEsme::receiptedId).containsExactly(id);
        assertThat(transmitter.deliveries).isEmpty();
        assertThat(smsc.stats().sessionsBound()).isEqualTo(2);
    }

    @Test
    void concatenatedPartsAreRecordedWithTheirReferenceAndDecodedText() throws Exception {
        start(FAST.toBuilder().receipts(SmscReceipts.NONE).build());
        TestEsme esme = bind();

        String first = esme.submit(
                (byte) 0, (byte) 0x40, concat(new byte[] {5, 0, 3, 42, 2, 1}, GsmAlphabet.encode("first half, ")));
        String second = esme.submit(
                (byte) 0, (byte) 0x40, concat(new byte[] {5, 0, 3, 42, 2, 2}, GsmAlphabet.encode("second {half}")));
        String ucs2 = esme.submit(
                (byte) 8,
                (byte) 0x40,
                concat(new byte[] {6, 8, 4, 0x12, 0x34, 3, 2}, "часть 2".getBytes(StandardCharsets.UTF_16BE)));
        // Another element before the concatenation one (a port address, 0x05) is skipped.
        String withPorts = esme.submit(
                (byte) 0,
                (byte) 0x40,
                concat(new byte[] {11, 5, 4, 0x0B, (byte) 0x84, 0, 0, 0, 3, 7, 1, 1}, GsmAlphabet.encode("ported")));

        assertThat(List.of(first, second, ucs2, withPorts)).containsExactly("1", "2", "3", "4");
        List<SmscSubmit> submits = smsc.submits();
        assertThat(submits)
                .extracting(SmscSubmit::text, SmscSubmit::concatRef, SmscSubmit::partNumber, SmscSubmit::partCount)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("first half, ", 42, 1, 2),
                        org.assertj.core.groups.Tuple.tuple("second {half}", 42, 2, 2),
                        org.assertj.core.groups.Tuple.tuple("часть 2", 0x1234, 2, 3),
                        org.assertj.core.groups.Tuple.tuple("ported", 7, 1, 1));
        assertThat(submits).extracting(SmscSubmit::esmClass).containsOnly((byte) 0x40);
    }

    @Test
    void ucs2Latin1AndGsmExtensionCharactersDecode() throws Exception {
        start(FAST.toBuilder().receipts(SmscReceipts.NONE).build());
        TestEsme esme = bind();
        String ucs2 = "Привет 👋 مرحبا";
        String gsm = "Price: 5€ [ok] {x} ~^|\\ @£¥ èÉ";

        esme.submit((byte) 8, (byte) 0, ucs2.getBytes(StandardCharsets.UTF_16BE));
        esme.submit((byte) 0, (byte) 0, GsmAlphabet.encode(gsm));
        esme.submit((byte) 3, (byte) 0, "café ñ".getBytes(StandardCharsets.ISO_8859_1));

        assertThat(smsc.submits()).extracting(SmscSubmit::text).containsExactly(ucs2, gsm, "café ñ");
        assertThat(smsc.submits()).extracting(SmscSubmit::dataCoding).containsExactly((byte) 8, (byte) 0, (byte) 3);
    }

    @Test
    void aBodyInMessagePayloadIsAcceptedAsOneMessage() throws Exception {
        start(FAST.toBuilder().receipts(SmscReceipts.NONE).build());
        TestEsme esme = bind();
        String longText = "long ".repeat(80);

        String id = esme.submit(
                (byte) 0, (byte) 0, new byte[0], new OptionalParameter.Message_payload(GsmAlphabet.encode(longText)));

        assertThat(id).isEqualTo("1");
        assertThat(smsc.submits()).singleElement().satisfies(submit -> {
            assertThat(submit.text()).isEqualTo(longText);
            assertThat(submit.viaPayload()).isTrue();
            assertThat(submit.partCount()).isEqualTo(1);
        });
    }

    @Test
    void undecodableBodiesAreRefusedAndTheSessionGoesOn() throws Exception {
        start(FAST.toBuilder().receipts(SmscReceipts.NONE).build());
        TestEsme esme = bind();

        assertThat(refusal(() -> esme.submit((byte) 8, (byte) 0, new byte[] {0, 0x41, 0})))
                .isEqualTo(SMPPConstant.STAT_ESME_RINVMSGLEN);
        assertThat(refusal(() -> esme.submit((byte) 5, (byte) 0, new byte[] {0x41})))
                .isEqualTo(SMPPConstant.STAT_ESME_RINVDCS);
        assertThat(refusal(() -> esme.submit((byte) 0, (byte) 0x40, new byte[] {10, 0, 3, 1})))
                .isEqualTo(SMPPConstant.STAT_ESME_RINVMSGLEN);
        assertThat(refusal(() -> esme.submit((byte) 0, (byte) 0, new byte[] {0x41, 0x1B})))
                .isEqualTo(SMPPConstant.STAT_ESME_RINVMSGLEN);
        // A surrogate pair split between two parts leaves a lone high surrogate at the end of the first.
        assertThat(refusal(() -> esme.submit((byte) 8, (byte) 0, new byte[] {0, 0x41, (byte) 0xD8, 0x3D})))
                .isEqualTo(SMPPConstant.STAT_ESME_RINVMSGLEN);

        assertThat(esme.submitText("still fine")).isEqualTo("1");
        SmscStats stats = smsc.stats();
        assertThat(stats.invalid()).isEqualTo(5);
        assertThat(stats.accepted()).isEqualTo(1);
        assertThat(stats.submits()).isEqualTo(6);
        assertThat(esme.session.getSessionState()).isEqualTo(SessionState.BOUND_TRX);
    }

    @Test
    void receiptPartsOnlyLeavesTheLaterPartsWithoutReceipt() throws Exception {
        start(FAST.toBuilder().receiptPartsOnly(2).build());
        TestEsme esme = bind();

        List<String> ids = new ArrayList<>();
        for (int part = 1; part <= 3; part++) {
            ids.add(esme.submit(
                    (byte) 0,
                    (byte) 0x40,
                    concat(new byte[] {5, 0, 3, 9, 3, (byte) part}, GsmAlphabet.encode("part " + part))));
        }

        // The receipts are decided before each submit_sm_resp: nothing is pending once two are acknowledged.
        awaitReceiptsSettled(2);
        assertThat(esme.acknowledged)
                .extracting(TestEsme::receiptedId)
                .containsExactlyInAnyOrder(ids.get(0), ids.get(1));
    }

    @Test
    void receiptBeforeResponseWritesTheReceiptAheadOfTheSubmitSmResp() throws Exception {
        start(FAST.toBuilder().receiptBeforeResponse(true).build());
        TestEsme esme = bind();

        String id = esme.submitText("race");

        // The client handles PDUs in order on one thread: the receipt was handled before the response.
        assertThat(esme.deliveries).extracting(TestEsme::receiptedId).containsExactly(id);
        awaitReceiptsSettled(1);
    }

    @Test
    void intermediateOnlySendsOneEnrouteReceiptAndNoneSendsNothing() throws Exception {
        start(FAST.toBuilder().receipts(SmscReceipts.INTERMEDIATE_ONLY).build());
        TestEsme esme = bind();

        String id = esme.submitText("on its way");
        awaitReceiptsSettled(1);
        assertThat(esme.deliveries).singleElement().satisfies(receipt -> {
            assertThat(TestEsme.text(receipt)).startsWith("id:" + id + " sub:001 dlvrd:000 ");
            assertThat(TestEsme.text(receipt)).contains(" stat:ENROUTE err:000 text:on its way");
            assertThat(TestEsme.messageState(receipt)).isEqualTo((byte) 1);
        });

        smsc.reconfigure(smsc.config().toBuilder().receipts(SmscReceipts.NONE).build());
        smsc.clear();
        assertThat(esme.submitText("silent")).isEqualTo("1");
        // Receipts are decided before the response: with NONE nothing was planned, so nothing can come.
        SmscStats stats = smsc.stats();
        assertThat(stats.receiptsPending()).isZero();
        assertThat(stats.receiptsSent()).isZero();
        assertThat(stats.accepted()).isEqualTo(1);
    }

    @Test
    void finalStatusSetsTheStatWordAndMessageState() throws Exception {
        start(FAST.toBuilder().finalStatus("UNDELIV").build());
        TestEsme esme = bind();

        esme.submitText("not delivered");
        awaitReceiptsSettled(1);
        smsc.reconfigure(smsc.config().toBuilder().finalStatus("WEIRD").build());
        esme.submitText("who knows");
        awaitReceiptsSettled(2);

        assertThat(esme.acknowledged)
                .extracting(TestEsme::text)
                .satisfiesExactlyInAnyOrder(
                        text -> assertThat(text).contains("dlvrd:000").contains("stat:UNDELIV"),
                        text -> assertThat(text).contains("dlvrd:000").contains("stat:WEIRD"));
        assertThat(esme.acknowledged).extracting(TestEsme::messageState).containsExactlyInAnyOrder((byte) 5, (byte) 7);
    }

    @Test
    void enquireLinksAreAnsweredUnlessSwitchedOff() throws Exception {
        start(FAST);
        TestEsme healthy = keep(TestEsme.bind(
                smsc, BindType.BIND_TRX, "sendlog", "secret", 300, session -> session.setEnquireLinkTimer(100)));
        await().atMost(WAIT).until(() -> smsc.stats().enquireLinks() >= 2);
        assertThat(healthy.session.getSessionState()).isEqualTo(SessionState.BOUND_TRX);
        healthy.close();

        smsc.reconfigure(smsc.config().toBuilder().enquireLinkResponse(false).build());
        TestEsme halfDead = keep(TestEsme.bind(
                smsc, BindType.BIND_TRX, "sendlog", "secret", 300, session -> session.setEnquireLinkTimer(100)));

        // jsmpp's client closes a session whose enquire_link goes unanswered.
        await().atMost(WAIT).until(() -> halfDead.session.getSessionState() == SessionState.CLOSED);
    }

    @Test
    void latencyDelaysEachResponse() throws Exception {
        start(FAST.toBuilder().latencyMs(150).receipts(SmscReceipts.NONE).build());
        TestEsme esme = bind();

        long started = System.nanoTime();
        esme.submitText("slow");

        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(150));
    }

    @Test
    void clearForgetsSubmitsAndCountersAndRestartsIds() throws Exception {
        start(FAST.toBuilder().receipts(SmscReceipts.NONE).firstId(10).build());
        TestEsme esme = bind();
        assertThat(esme.submitText("a")).isEqualTo("a");

        smsc.clear();

        assertThat(smsc.submits()).isEmpty();
        assertThat(smsc.stats().accepted()).isZero();
        assertThat(smsc.stats().sessionsBound()).isEqualTo(1);
        assertThat(esme.submitText("b")).isEqualTo("a");
    }

    private static byte[] concat(byte[] header, byte[] text) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(header);
        out.writeBytes(text);
        return out.toByteArray();
    }
}
