package dev.sendlog.service.receipts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sendlog.events.ReceiptKind;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The two shipped vocabularies, every value of each, and the callback parser's refusals. */
class VocabularyTest {

    @ParameterizedTest
    @CsvSource({
        "ENROUTE,INTERMEDIATE",
        "ACCEPTD,INTERMEDIATE",
        "DELIVRD,DELIVERED",
        "EXPIRED,UNDELIVERED",
        "DELETED,UNDELIVERED",
        "UNDELIV,UNDELIVERED",
        "REJECTD,UNDELIVERED",
        "UNKNOWN,UNKNOWN"
    })
    void everySmppStatMapsAsTheDesignSays(String stat, ReceiptKind kind) {
        assertThat(Vocabulary.smpp().map(stat)).contains(kind);
    }

    @ParameterizedTest
    @CsvSource({
        "queued,INTERMEDIATE",
        "sending,INTERMEDIATE",
        "sent,INTERMEDIATE",
        "delivered,DELIVERED",
        "undelivered,UNDELIVERED",
        "failed,UNDELIVERED"
    })
    void everyJsonStatusMapsAsTheDesignSays(String status, ReceiptKind kind) {
        assertThat(Vocabulary.json().map(status)).contains(kind);
    }

    @Test
    void theVocabulariesKnowExactlyTheirWords() {
        assertThat(Vocabulary.smpp().statuses()).hasSize(8);
        assertThat(Vocabulary.json().statuses()).hasSize(6);
        assertThat(Vocabulary.smpp().map("delivrd")).isEmpty();
        assertThat(Vocabulary.json().map("DELIVERED")).isEmpty();
    }

    @Test
    void smppTimestampsParseWithAndWithoutSecondsInUtcAndNothingElse() {
        assertThat(Vocabulary.smpp().parseTimestamp("2611300931")).contains(Instant.parse("2026-11-30T09:31:00Z"));
        assertThat(Vocabulary.smpp().parseTimestamp("261130093145")).contains(Instant.parse("2026-11-30T09:31:45Z"));
        assertThat(Vocabulary.smpp().parseTimestamp("261345256199")).isEmpty();
        assertThat(Vocabulary.smpp().parseTimestamp("2026-11-30T09:31:00Z")).isEmpty();
        assertThat(Vocabulary.smpp().parseTimestamp("")).isEmpty();
    }

    @Test
    void jsonTimestampsAreIso8601() {
        assertThat(Vocabulary.json().parseTimestamp("2026-11-30T09:31:02.123Z"))
                .contains(Instant.parse("2026-11-30T09:31:02.123Z"));
        assertThat(Vocabulary.json().parseTimestamp("2026-11-30T10:31:02+01:00"))
                .contains(Instant.parse("2026-11-30T09:31:02Z"));
        assertThat(Vocabulary.json().parseTimestamp("2026-13-45T25:61:99.000Z")).isEmpty();
        assertThat(Vocabulary.json().parseTimestamp("2611300931")).isEmpty();
    }

    /** The log keeps provider times to the microsecond, years 1970 to 9999: a time outside them is parked, not stored. */
    @Test
    void timesOutsideWhatTheLogKeepsAreRefusedAndFinerOnesKeptToTheMicrosecond() {
        assertThat(Vocabulary.json().parseTimestamp("0000-01-01T00:00:00Z")).isEmpty();
        assertThat(Vocabulary.json().parseTimestamp("1969-12-31T23:59:59Z")).isEmpty();
        assertThat(Vocabulary.json().parseTimestamp("+999999999-12-31T23:59:59Z"))
                .isEmpty();
        assertThat(Vocabulary.json().parseTimestamp("+10000-01-01T00:00:00Z")).isEmpty();
        assertThat(Vocabulary.json().parseTimestamp("9999-12-31T23:59:59.999999Z"))
                .contains(Instant.parse("9999-12-31T23:59:59.999999Z"));
        assertThat(Vocabulary.json().parseTimestamp("1970-01-01T00:00:00Z")).contains(Instant.EPOCH);
        assertThat(Vocabulary.json().parseTimestamp("2026-11-30T09:31:02.123456789Z"))
                .contains(Instant.parse("2026-11-30T09:31:02.123456Z"));
    }

    @Test
    void configuredWordsExtendAVocabulary() {
        Vocabulary v = Vocabulary.named("smpp", Map.of("DELIVERED_OK", "DELIVERED"));
        assertThat(v.map("DELIVERED_OK")).contains(ReceiptKind.DELIVERED);
        assertThat(v.map("DELIVRD")).contains(ReceiptKind.DELIVERED);
    }

    private static ParkReason parked(String body) {
        return parked(bytes(body));
    }

    private static ParkReason parked(byte[] body) {
        return CallbackParser.parse(body, Vocabulary.smpp()).parkReason();
    }

    @Test
    void theParserParksWhatItCannotReadWithATypedReasonAndNeverInventsATime() {
        Vocabulary smpp = Vocabulary.smpp();
        // The kind is decided where the problem is found (issue 24, item 22), not read back out of the text.
        assertThat(parked("not json")).isEqualTo(ParkReason.of(ParkReason.Kind.NOT_JSON, "body is not JSON"));
        assertThat(parked("[1]")).isEqualTo(ParkReason.of(ParkReason.Kind.NOT_JSON, "body is not a JSON object"));
        assertThat(parked("{\"status\":\"DELIVRD\",\"timestamp\":\"2611300931\"}"))
                .isEqualTo(ParkReason.of(ParkReason.Kind.MISSING_FIELD, "missing or invalid field id"));
        assertThat(parked("{\"id\":\"p1\",\"timestamp\":\"2611300931\"}"))
                .isEqualTo(ParkReason.of(ParkReason.Kind.MISSING_FIELD, "missing or invalid field status"));
        assertThat(parked("{\"id\":\"p1\",\"status\":\"DELIVRD\"}"))
                .isEqualTo(ParkReason.of(ParkReason.Kind.MISSING_FIELD, "missing or invalid field timestamp"));
        assertThat(parked("{\"id\":\"p1\",\"status\":\"MYSTERY\",\"timestamp\":\"2611300931\"}"))
                .isEqualTo(ParkReason.of(ParkReason.Kind.UNMAPPED_STATUS, "unmapped status MYSTERY"));
        assertThat(parked("{\"id\":\"p1\",\"status\":\"DELIVRD\",\"timestamp\":\"yesterday\"}"))
                .isEqualTo(ParkReason.of(ParkReason.Kind.BAD_TIMESTAMP, "unparseable timestamp yesterday"));
        assertThat(parked("{\"id\":7,\"status\":\"DELIVRD\",\"timestamp\":\"2611300931\"}"))
                .isEqualTo(ParkReason.of(ParkReason.Kind.MISSING_FIELD, "missing or invalid field id"));
        assertThat(parked(new byte[] {(byte) 0xff, (byte) 0xfe}))
                .isEqualTo(ParkReason.of(ParkReason.Kind.NOT_JSON, "body is not JSON"));
        // A status word that reads like another reason's wording is still an unmapped status.
        assertThat(parked("{\"id\":\"p1\",\"status\":\"missing\",\"timestamp\":\"2611300931\"}")
                        .kind())
                .isEqualTo(ParkReason.Kind.UNMAPPED_STATUS);
        assertThat(ParkReason.Kind.UNMAPPED_STATUS.metricName()).isEqualTo("unmapped-status");
        assertThat(ParkReason.Kind.BAD_TEXT.metricName()).isEqualTo("bad-text");
        assertThat(ParkReason.Kind.BAD_TIMESTAMP.metricName()).isEqualTo("bad-timestamp");

        var ok = CallbackParser.parse(
                        bytes(
                                "{\"id\":\"p1\",\"reference\":\"r\",\"status\":\"UNDELIV\",\"timestamp\":\"261130093145\","
                                        + "\"errorCode\":\"E42\"}"),
                        smpp)
                .callback();
        assertThat(ok.kind()).isEqualTo(ReceiptKind.UNDELIVERED);
        assertThat(ok.timestamp()).isEqualTo(Instant.parse("2026-11-30T09:31:45Z"));
        assertThat(ok.errorCode()).isEqualTo("E42");
    }

    /** Issue 24, item 15: what the parser used to drop or let PostgreSQL's encoder change is parked instead. */
    @Test
    void aFieldThatCannotBeKeptAsSentParksTheCallbackInsteadOfBeingDroppedOrChanged() {
        String head = "{\"id\":\"p1\",\"reference\":\"r\",\"status\":\"UNDELIV\",\"timestamp\":\"2611300931\"";
        for (String field : List.of("id", "reference", "status", "timestamp", "errorCode")) {
            for (String bad : List.of("a\\u0000b", "a\\ud800b", "\\udc00", "x\\udbff")) {
                Map<String, String> fields = new java.util.LinkedHashMap<>(
                        Map.of("id", "p1", "reference", "r", "status", "UNDELIV", "timestamp", "2611300931"));
                fields.put(field, bad);
                StringBuilder json = new StringBuilder();
                fields.forEach((k, v) -> json.append(json.isEmpty() ? "{" : ",")
                        .append('"')
                        .append(k)
                        .append("\":\"")
                        .append(v)
                        .append('"'));
                String body = json.append('}').toString();
                assertThat(parked(body)).as(body).isNotNull();
                assertThat(parked(body).kind()).as(body).isEqualTo(ParkReason.Kind.BAD_TEXT);
                assertThat(parked(body).text()).as(body).startsWith("field " + field + " ");
            }
        }
        for (String errorCode : List.of("42", "true", "{}", "[\"E1\"]", "\"" + "e".repeat(257) + "\"")) {
            assertThat(parked(head + ",\"errorCode\":" + errorCode + "}"))
                    .isEqualTo(ParkReason.of(
                            ParkReason.Kind.MISSING_FIELD,
                            "invalid field errorCode (a string of at most 256 characters when present)"));
        }
        assertThat(parked((head + ",\"reference\":7}").replace(",\"reference\":\"r\"", ""))
                        .text())
                .startsWith("invalid field reference");
        // Absent, null or blank optional fields carry no value: the receipt is read.
        for (String fine : List.of(
                head + "}",
                head + ",\"errorCode\":null}",
                head + ",\"errorCode\":\"\"}",
                head + ",\"errorCode\":\"E \\ud83d\\ude00\"}")) {
            assertThat(CallbackParser.parse(bytes(fine), Vocabulary.smpp()).callback())
                    .as(fine)
                    .isNotNull();
        }
    }

    @Test
    void signaturesAreCheckedOverTheRawBytes() {
        byte[] body = bytes("{\"id\":\"p1\"}");
        String good = CallbackSignature.sign("s3cret", body);
        assertThat(good).startsWith("sha256=").hasSize(7 + 64);
        assertThat(CallbackSignature.verify("s3cret", body, good)).isTrue();
        assertThat(CallbackSignature.verify("s3cret", body, good.toUpperCase().replace("SHA256=", "sha256=")))
                .isTrue();
        assertThat(CallbackSignature.verify("other", body, good)).isFalse();
        assertThat(CallbackSignature.verify("s3cret", bytes("{\"id\":\"p2\"}"), good))
                .isFalse();
        assertThat(CallbackSignature.verify("s3cret", body, null)).isFalse();
        assertThat(CallbackSignature.verify("s3cret", body, "sha256=")).isFalse();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
