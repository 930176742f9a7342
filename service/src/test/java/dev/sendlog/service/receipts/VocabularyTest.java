package dev.sendlog.service.receipts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sendlog.events.ReceiptKind;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The two shipped vocabularies, every value of each, and the callback parser's refusals. */
class VocabularyTest {

    @ParameterizedTest
    @CsvSource({"ENROUTE,INTERMEDIATE", "ACCEPTD,INTERMEDIATE", "DELIVRD,DELIVERED", "EXPIRED,UNDELIVERED",
            "DELETED,UNDELIVERED", "UNDELIV,UNDELIVERED", "REJECTD,UNDELIVERED", "UNKNOWN,UNKNOWN"})
    void everySmppStatMapsAsTheDesignSays(String stat, ReceiptKind kind) {
        assertThat(Vocabulary.smpp().map(stat)).contains(kind);
    }

    @ParameterizedTest
    @CsvSource({"queued,INTERMEDIATE", "sending,INTERMEDIATE", "sent,INTERMEDIATE", "delivered,DELIVERED",
            "undelivered,UNDELIVERED", "failed,UNDELIVERED"})
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
        assertThat(Vocabulary.json().parseTimestamp("2026-11-30T09:31:02.123Z")).contains(Instant.parse("2026-11-30T09:31:02.123Z"));
        assertThat(Vocabulary.json().parseTimestamp("2026-11-30T10:31:02+01:00")).contains(Instant.parse("2026-11-30T09:31:02Z"));
        assertThat(Vocabulary.json().parseTimestamp("2026-13-45T25:61:99.000Z")).isEmpty();
        assertThat(Vocabulary.json().parseTimestamp("2611300931")).isEmpty();
    }

    /** The log keeps provider times to the microsecond, years 1970 to 9999: a time outside them is parked, not stored. */
    @Test
    void timesOutsideWhatTheLogKeepsAreRefusedAndFinerOnesKeptToTheMicrosecond() {
        assertThat(Vocabulary.json().parseTimestamp("0000-01-01T00:00:00Z")).isEmpty();
        assertThat(Vocabulary.json().parseTimestamp("1969-12-31T23:59:59Z")).isEmpty();
        assertThat(Vocabulary.json().parseTimestamp("+999999999-12-31T23:59:59Z")).isEmpty();
        assertThat(Vocabulary.json().parseTimestamp("+10000-01-01T00:00:00Z")).isEmpty();
        assertThat(Vocabulary.json().parseTimestamp("9999-12-31T23:59:59.999999Z")).contains(Instant.parse("9999-12-31T23:59:59.999999Z"));
        assertThat(Vocabulary.json().parseTimestamp("1970-01-01T00:00:00Z")).contains(Instant.EPOCH);
        assertThat(Vocabulary.json().parseTimestamp("2026-11-30T09:31:02.123456789Z")).contains(Instant.parse("2026-11-30T09:31:02.123456Z"));
    }

    @Test
    void configuredWordsExtendAVocabulary() {
        Vocabulary v = Vocabulary.named("smpp", Map.of("DELIVERED_OK", "DELIVERED"));
        assertThat(v.map("DELIVERED_OK")).contains(ReceiptKind.DELIVERED);
        assertThat(v.map("DELIVRD")).contains(ReceiptKind.DELIVERED);
    }

    @Test
    void theParserParksWhatItCannotReadWithTheReasonAndNeverInventsATime() {
        Vocabulary smpp = Vocabulary.smpp();
        assertThat(CallbackParser.parse(bytes("not json"), smpp).parkReason()).isEqualTo("body is not JSON");
        assertThat(CallbackParser.parse(bytes("[1]"), smpp).parkReason()).isEqualTo("body is not a JSON object");
        assertThat(CallbackParser.parse(bytes("{\"status\":\"DELIVRD\",\"timestamp\":\"2611300931\"}"), smpp).parkReason())
                .isEqualTo("missing or invalid field id");
        assertThat(CallbackParser.parse(bytes("{\"id\":\"p1\",\"timestamp\":\"2611300931\"}"), smpp).parkReason())
                .isEqualTo("missing or invalid field status");
        assertThat(CallbackParser.parse(bytes("{\"id\":\"p1\",\"status\":\"DELIVRD\"}"), smpp).parkReason())
                .isEqualTo("missing or invalid field timestamp");
        assertThat(CallbackParser.parse(bytes("{\"id\":\"p1\",\"status\":\"MYSTERY\",\"timestamp\":\"2611300931\"}"), smpp)
                .parkReason()).isEqualTo("unmapped status MYSTERY");
        assertThat(CallbackParser.parse(bytes("{\"id\":\"p1\",\"status\":\"DELIVRD\",\"timestamp\":\"yesterday\"}"), smpp)
                .parkReason()).isEqualTo("unparseable timestamp yesterday");
        assertThat(CallbackParser.parse(bytes("{\"id\":7,\"status\":\"DELIVRD\",\"timestamp\":\"2611300931\"}"), smpp)
                .parkReason()).isEqualTo("missing or invalid field id");
        assertThat(CallbackParser.parse(new byte[] {(byte) 0xff, (byte) 0xfe}, smpp).parkReason()).isEqualTo("body is not JSON");

        var ok = CallbackParser.parse(bytes("{\"id\":\"p1\",\"reference\":\"r\",\"status\":\"UNDELIV\",\"timestamp\":\"261130093145\","
                + "\"errorCode\":\"E42\"}"), smpp).callback();
        assertThat(ok.kind()).isEqualTo(ReceiptKind.UNDELIVERED);
        assertThat(ok.timestamp()).isEqualTo(Instant.parse("2026-11-30T09:31:45Z"));
        assertThat(ok.errorCode()).isEqualTo("E42");
    }

    @Test
    void signaturesAreCheckedOverTheRawBytes() {
        byte[] body = bytes("{\"id\":\"p1\"}");
        String good = CallbackSignature.sign("s3cret", body);
        assertThat(good).startsWith("sha256=").hasSize(7 + 64);
        assertThat(CallbackSignature.verify("s3cret", body, good)).isTrue();
        assertThat(CallbackSignature.verify("s3cret", body, good.toUpperCase().replace("SHA256=", "sha256="))).isTrue();
        assertThat(CallbackSignature.verify("other", body, good)).isFalse();
        assertThat(CallbackSignature.verify("s3cret", bytes("{\"id\":\"p2\"}"), good)).isFalse();
        assertThat(CallbackSignature.verify("s3cret", body, null)).isFalse();
        assertThat(CallbackSignature.verify("s3cret", body, "sha256=")).isFalse();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
