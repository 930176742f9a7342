package dev.sendlog.simulator.smpp;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonPOJOBuilder;

/**
 * How the SMSC simulator behaves. Read from JSON through {@link Builder}, so absent fields keep their defaults and
 * unknown fields (typos) fail.
 *
 * @param systemId             the only system_id a bind may carry (else {@code ESME_RINVSYSID})
 * @param password             the only password a bind may carry (else {@code ESME_RINVPASWD})
 * @param latencyMs            delay before each submit_sm_resp, errors included
 * @param maxPerSecond         submits above this rate (a token bucket of one second's worth, full at start) are answered
 *                             {@code ESME_RTHROTTLED} and not recorded; 0: no limit
 * @param queueFullEvery       every n-th submit that passed the rate and decoded is answered {@code ESME_RMSGQFUL}
 *                             and not recorded; 0: never
 * @param loseResponseRate     share of accepted submits whose submit_sm_resp is never sent: recorded, receipted, but
 *                             the client times out (SMPP's unknown outcome)
 * @param receipts             which receipts are sent per accepted submit_sm
 * @param receiptDelayMs       delay between the submit_sm_resp (sent or lost) and the first receipt attempt
 * @param receiptBeforeResponse whether the receipt is written before the submit_sm_resp (a real SMSC race); the
 *                             receipt delay is then not waited
 * @param receiptPartsOnly     for a concatenated message, receipts only for parts 1..n; 0: all parts
 * @param idFormat             how message ids are written in submit_sm_resp
 * @param receiptIdDecimal     with {@link SmscIdFormat#HEX}: the receipt's {@code id:} and its receipted_message_id
 *                             TLV carry the same number in decimal
 * @param firstId              the number of the first message id after start and after {@code clear()}
 * @param finalStatus          the stat word of final receipts, for example DELIVRD, UNDELIV or an unknown word
 * @param enquireLinkResponse  whether enquire_link is answered; false simulates a half-dead link
 */
@JsonDeserialize(builder = SmscConfig.Builder.class)
public record SmscConfig(
        String systemId,
        String password,
        long latencyMs,
        int maxPerSecond,
        int queueFullEvery,
        double loseResponseRate,
        SmscReceipts receipts,
        long receiptDelayMs,
        boolean receiptBeforeResponse,
        int receiptPartsOnly,
        SmscIdFormat idFormat,
        boolean receiptIdDecimal,
        long firstId,
        String finalStatus,
        boolean enquireLinkResponse) {

    public SmscConfig {
        if (systemId == null || systemId.isBlank() || systemId.length() > 15) {
            throw new IllegalArgumentException("systemId must be 1 to 15 characters, was " + systemId);
        }
        if (password == null || password.length() > 8) {
            throw new IllegalArgumentException("password must be at most 8 characters (SMPP 3.4)");
        }
        requireNotNegative("latencyMs", latencyMs);
        requireNotNegative("maxPerSecond", maxPerSecond);
        requireNotNegative("queueFullEvery", queueFullEvery);
        if (!(loseResponseRate >= 0.0 && loseResponseRate <= 1.0)) {
            throw new IllegalArgumentException("loseResponseRate must be between 0 and 1, was " + loseResponseRate);
        }
        requireNotNull("receipts", receipts);
        requireNotNegative("receiptDelayMs", receiptDelayMs);
        requireNotNegative("receiptPartsOnly", receiptPartsOnly);
        requireNotNull("idFormat", idFormat);
        requireNotNegative("firstId", firstId);
        if (finalStatus == null || finalStatus.isEmpty() || !finalStatus.chars().allMatch(c -> c > ' ' && c < 0x7F)) {
            throw new IllegalArgumentException("finalStatus must be one printable ASCII word, was " + finalStatus);
        }
    }

    /** Binds as sendlog/secret, answers at once, no faults, one DELIVRD receipt 50 ms after each response. */
    public static SmscConfig defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder that starts from this configuration, to change a few fields. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    private static void requireNotNull(String name, Object value) {
        if (value == null) {
            throw new IllegalArgumentException(name + " must be set");
        }
    }

    private static void requireNotNegative(String name, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " must not be negative, was " + value);
        }
    }

    /** Builds an {@link SmscConfig}; its field initialisers are the defaults, also for JSON. */
    @JsonPOJOBuilder(withPrefix = "")
    @JsonIgnoreProperties(ignoreUnknown = false)
    public static final class Builder {
        private String systemId = "sendlog";
        private String password = "secret";
        private long latencyMs = 0;
        private int maxPerSecond = 0;
        private int queueFullEvery = 0;
        private double loseResponseRate = 0.0;
        private SmscReceipts receipts = SmscReceipts.FINAL;
        private long receiptDelayMs = 50;
        private boolean receiptBeforeResponse = false;
        private int receiptPartsOnly = 0;
        private SmscIdFormat idFormat = SmscIdFormat.HEX;
        private boolean receiptIdDecimal = false;
        private long firstId = 1;
        private String finalStatus = "DELIVRD";
        private boolean enquireLinkResponse = true;

        public Builder() {}

        Builder(SmscConfig from) {
            systemId = from.systemId;
            password = from.password;
            latencyMs = from.latencyMs;
            maxPerSecond = from.maxPerSecond;
            queueFullEvery = from.queueFullEvery;
            loseResponseRate = from.loseResponseRate;
            receipts = from.receipts;
            receiptDelayMs = from.receiptDelayMs;
            receiptBeforeResponse = from.receiptBeforeResponse;
            receiptPartsOnly = from.receiptPartsOnly;
            idFormat = from.idFormat;
            receiptIdDecimal = from.receiptIdDecimal;
            firstId = from.firstId;
            finalStatus = from.finalStatus;
            enquireLinkResponse = from.enquireLinkResponse;
        }

        public Builder systemId(String value) {
            systemId = value;
            return this;
        }

        public Builder password(String value) {
            password = value;
            return this;
        }

        public Builder latencyMs(long value) {
            latencyMs = value;
            return this;
        }

        public Builder maxPerSecond(int value) {
            maxPerSecond = value;
            return this;
        }

        public Builder queueFullEvery(int value) {
            queueFullEvery = value;
            return this;
        }

        public Builder loseResponseRate(double value) {
            loseResponseRate = value;
            return this;
        }

        public Builder receipts(SmscReceipts value) {
            receipts = value;
            return this;
        }

        public Builder receiptDelayMs(long value) {
            receiptDelayMs = value;
            return this;
        }

        public Builder receiptBeforeResponse(boolean value) {
            receiptBeforeResponse = value;
            return this;
        }

        public Builder receiptPartsOnly(int value) {
            receiptPartsOnly = value;
            return this;
        }

        public Builder idFormat(SmscIdFormat value) {
            idFormat = value;
            return this;
        }

        public Builder receiptIdDecimal(boolean value) {
            receiptIdDecimal = value;
            return this;
        }

        public Builder firstId(long value) {
            firstId = value;
            return this;
        }

        public Builder finalStatus(String value) {
            finalStatus = value;
            return this;
        }

        public Builder enquireLinkResponse(boolean value) {
            enquireLinkResponse = value;
            return this;
        }

        public SmscConfig build() {
            return new SmscConfig(
                    systemId,
                    password,
                    latencyMs,
                    maxPerSecond,
                    queueFullEvery,
                    loseResponseRate,
                    receipts,
                    receiptDelayMs,
                    receiptBeforeResponse,
                    receiptPartsOnly,
                    idFormat,
                    receiptIdDecimal,
                    firstId,
                    finalStatus,
                    enquireLinkResponse);
        }
    }
}
