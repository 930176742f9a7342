package dev.sendlog.service.send.provider.smpp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sendlog.events.ReceiptKind;
import dev.sendlog.service.log.Segments;
import dev.sendlog.service.receipts.CallbackParser;
import dev.sendlog.service.receipts.ParkReason;
import dev.sendlog.service.receipts.Vocabulary;
import dev.sendlog.service.send.provider.SubmitOutcome;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.jsmpp.bean.DeliverSm;
import org.jsmpp.bean.NumberingPlanIndicator;
import org.jsmpp.bean.OptionalParameter;
import org.jsmpp.bean.TypeOfNumber;
import org.junit.jupiter.api.Test;

/** The SMPP gateway's rules that need no SMSC: text coding, addresses, id forms, error statuses, receipts. */
class SmppPiecesTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void gsmTextIsOneOctetPerSeptetAndAnExtensionCharacterIsTheEscapeAndItsCode() {
        assertThat(Segments.gsm7Unpacked("@A a")).containsExactly(0x00, 0x41, 0x20, 0x61);
        assertThat(Segments.gsm7Unpacked("€[]")).containsExactly(0x1B, 0x65, 0x1B, 0x3C, 0x1B, 0x3E);
        // The four characters after the escape's place and the table's last one keep their codes.
        assertThat(Segments.gsm7Unpacked("ÆÉ¡à")).containsExactly(0x1C, 0x1F, 0x40, 0x7F);
        assertThatThrownBy(() -> Segments.gsm7Unpacked("日本")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void senderIdsMapToTheTypeOfNumberSmscsExpect() {
        assertThat(SmppAddress.source("+447700900123", ""))
                .isEqualTo(new SmppAddress(TypeOfNumber.INTERNATIONAL, NumberingPlanIndicator.ISDN, "447700900123"));
        assertThat(SmppAddress.source("12345", ""))
                .isEqualTo(new SmppAddress(TypeOfNumber.NETWORK_SPECIFIC, NumberingPlanIndicator.UNKNOWN, "12345"));
        assertThat(SmppAddress.source("Acme Bank", ""))
                .isEqualTo(new SmppAddress(TypeOfNumber.ALPHANUMERIC, NumberingPlanIndicator.UNKNOWN, "Acme Bank"));
        assertThat(SmppAddress.source(null, "Shop").ton()).isEqualTo(TypeOfNumber.ALPHANUMERIC);
        assertThat(SmppAddress.source(null, "")).isEqualTo(SmppAddress.NONE);
        assertThat(SmppAddress.destination("+15551234567").address()).isEqualTo("15551234567");
    }

    @Test
    void idsAreKeptInTheReceiptsFormSoAResponseAndItsReceiptNameTheSameMessage() {
        SmppIds hexToDecimal = SmppIds.of("hex-to-decimal");
        assertThat(hexToDecimal.fromResponse("00FF")).isEqualTo("255");
        assertThat(hexToDecimal.fromReceipt("0255")).isEqualTo("255");
        assertThat(hexToDecimal.fromResponse("not-hex")).isNull();
        SmppIds decimalToHex = SmppIds.of("decimal-to-hex");
        assertThat(decimalToHex.fromResponse("255")).isEqualTo("ff");
        assertThat(decimalToHex.fromReceipt("00FF")).isEqualTo("ff");
        assertThat(SmppIds.of("as-is").fromResponse("Ab-01")).isEqualTo("Ab-01");
        assertThatThrownBy(() -> SmppIds.of("base64")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void throttlingSlowsDownMessageFaultsRejectAndEveryOtherStatusIsATransientRefusal() {
        assertThat(SmppStatuses.outcome(0x58)).isInstanceOf(SubmitOutcome.Throttled.class);
        assertThat(SmppStatuses.outcome(0x14)).isInstanceOf(SubmitOutcome.Throttled.class);
        SubmitOutcome badNumber = SmppStatuses.outcome(0x0B);
        assertThat(badNumber).isInstanceOf(SubmitOutcome.Permanent.class);
        assertThat(((SubmitOutcome.Permanent) badNumber).describe())
                .isEqualTo("SMPP 0x0000000B: ESME_RINVDSTADR invalid destination address");
        for (int status : new int[] {0x08, 0x45, 0x64, 0x0400}) {
            SubmitOutcome outcome = SmppStatuses.outcome(status);
            assertThat(outcome).isInstanceOf(SubmitOutcome.Transient.class);
            // An error status means the SMSC did not take it: a routed message may pass to its next gateway.
            assertThat(((SubmitOutcome.Transient) outcome).notTaken()).isTrue();
        }
    }

    private static DeliverSm receipt(String text, OptionalParameter... tlvs) {
        DeliverSm pdu = new DeliverSm();
        pdu.setEsmClass((byte) 0x04);
        pdu.setSourceAddr("447700900123");
        pdu.setShortMessage(text.getBytes(StandardCharsets.ISO_8859_1));
        pdu.setOptionalParameters(tlvs);
        return pdu;
    }

    private static JsonNode body(DeliverSm pdu, String idFormat) throws IOException {
        return JSON.readTree(SmppReceipts.body(pdu, SmppIds.of(idFormat)));
    }

    @Test
    void aReceiptTextBecomesACallbackTheSmppVocabularyMaps() throws IOException {
        DeliverSm pdu = receipt("id:123 sub:001 dlvrd:001 submit date:2612060801 done date:2612060803 stat:DELIVRD"
                + " err:000 text:hello");
        byte[] body = SmppReceipts.body(pdu, SmppIds.of("as-is"));
        JsonNode node = JSON.readTree(body);
        assertThat(node.get("id").asText()).isEqualTo("123");
        assertThat(node.get("status").asText()).isEqualTo("DELIVRD");
        assertThat(node.get("timestamp").asText()).isEqualTo("2612060803");
        assertThat(node.get("errorCode").asText()).isEqualTo("000");
        CallbackParser.Result parsed = CallbackParser.parse(body, Vocabulary.smpp());
        assertThat(parsed.parkReason()).isNull();
        assertThat(parsed.callback().kind()).isEqualTo(ReceiptKind.DELIVERED);
        assertThat(parsed.callback().timestamp()).isEqualTo(Instant.parse("2026-12-06T08:03:00Z"));
    }

    @Test
    void theTlvsNameTheMessageAndItsStateWhenTheTextDoesNotAndIdsAreNormalised() throws IOException {
        DeliverSm pdu = receipt(
                "done date:2612060803",
                new OptionalParameter.Receipted_message_id("0255"),
                new OptionalParameter.Message_state((byte) 5));
        JsonNode node = body(pdu, "hex-to-decimal");
        assertThat(node.get("id").asText()).isEqualTo("255");
        assertThat(node.get("status").asText()).isEqualTo("UNDELIV");
        assertThat(node.get("smpp").get("tlvs").get("0x0427").asText()).isEqualTo("05");
    }

    @Test
    void anUnknownStatOrAnUnreadableDateIsParkedWithTheRawPdu() throws IOException {
        byte[] weird = SmppReceipts.body(receipt("id:9 done date:2612060803 stat:WEIRD err:000"), SmppIds.of("as-is"));
        CallbackParser.Result parked = CallbackParser.parse(weird, Vocabulary.smpp());
        assertThat(parked.parkReason()).isNotNull();
        assertThat(parked.parkReason().kind()).isEqualTo(ParkReason.Kind.UNMAPPED_STATUS);
        assertThat(JSON.readTree(weird).get("smpp").get("shortMessage").asText())
                .isEqualTo(java.util.HexFormat.of()
                        .formatHex("id:9 done date:2612060803 stat:WEIRD err:000".getBytes(StandardCharsets.US_ASCII)));
        byte[] badDate = SmppReceipts.body(receipt("id:9 done date:2613 stat:DELIVRD"), SmppIds.of("as-is"));
        assertThat(CallbackParser.parse(badDate, Vocabulary.smpp()).parkReason())
                .isNotNull();
    }
}
