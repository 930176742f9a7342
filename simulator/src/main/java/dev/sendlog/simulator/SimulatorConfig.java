package dev.sendlog.simulator;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;

/**
 * How the simulator behaves. Read from JSON through {@link SimulatorConfigBuilder}, so absent fields keep
 * their defaults and unknown fields (typos) fail. Rates are probabilities in [0, 1], rolled independently
 * per submit (or per callback for {@code unknownStatusRate} and {@code badTimestampRate}).
 *
 * @param token                   bearer token a submit must carry
 * @param callbackSecret          HMAC-SHA256 key for the callbacks' {@code X-Signature}
 * @param latencyMs               median time a submit takes before it is answered
 * @param latencyJitterMs         half-width of the uniform spread around {@code latencyMs}
 * @param latencyDistribution     fixed or uniform latency
 * @param transientErrorRate      share of submits answered 503 (with {@code Retry-After: 1}), unrecorded: a failed attempt;
 *                                429 belongs to {@code maxPerSecond}, the one refusal that is no attempt
 * @param permanentErrorRate      share of submits answered 422 with a text, unrecorded
 * @param dropAfterAcceptRate     share of recorded submits whose connection is cut instead of answered
 * @param idWrapModulus           provider ids are {@code "p" + (counter % idWrapModulus)}, so they repeat
 * @param receiptMode             which receipts are sent and in which order
 * @param intermediateReceipts    intermediate receipts per message
 * @param receiptDelayMs          delay between accepting a message and its first callback
 * @param receiptSpacingMs        delay between two callbacks of one message
 * @param undeliveredRate         share of finals that are negative
 * @param unknownStatusRate       share of callbacks whose status is outside the vocabulary
 * @param badTimestampRate        share of callbacks whose timestamp does not parse in the vocabulary's format
 * @param vocabulary              status words and timestamp format of the callbacks
 * @param echoReference           whether callbacks carry the client's reference
 * @param seed                    seed of the random sequence; null seeds from the clock
 * @param callbackConcurrency     at most this many callback requests in flight
 * @param callbackMaxAttempts     attempts per callback before it is given up and counted as failed
 * @param callbackQueueCapacity   at most this many messages with receipts still to send; a submit waits when full
 * @param callbackLossRate        share of accepted messages whose callbacks are never sent (a provider that restarted
 *                                and forgot them); the status query still knows their outcome
 * @param queryErrorRate          share of status queries answered 503 (with {@code Retry-After: 1})
 * @param queryLatencyMs          how long a status query takes to answer
 * @param maxPerSecond            the provider's own rate: submits above this many per second (a bucket of one second's
 *                                worth, full at start) are answered 429 with {@code Retry-After: 1}, unrecorded; 0: none
 */
@JsonDeserialize(builder = SimulatorConfigBuilder.class)
@JsonIgnoreProperties(ignoreUnknown = false)
public record SimulatorConfig(
        String token,
        String callbackSecret,
        long latencyMs,
        long latencyJitterMs,
        LatencyDistribution latencyDistribution,
        double transientErrorRate,
        double permanentErrorRate,
        double dropAfterAcceptRate,
        long idWrapModulus,
        ReceiptMode receiptMode,
        int intermediateReceipts,
        long receiptDelayMs,
        long receiptSpacingMs,
        double undeliveredRate,
        double unknownStatusRate,
        double badTimestampRate,
        Vocabulary vocabulary,
        boolean echoReference,
        Long seed,
        int callbackConcurrency,
        int callbackMaxAttempts,
        int callbackQueueCapacity,
        double callbackLossRate,
        double queryErrorRate,
        long queryLatencyMs,
        int maxPerSecond) {

    public SimulatorConfig {
        requireText("token", token);
        requireText("callbackSecret", callbackSecret);
        requireNotNegative("latencyMs", latencyMs);
        requireNotNegative("latencyJitterMs", latencyJitterMs);
        requireNotNull("latencyDistribution", latencyDistribution);
        requireRate("transientErrorRate", transientErrorRate);
        requireRate("permanentErrorRate", permanentErrorRate);
        requireRate("dropAfterAcceptRate", dropAfterAcceptRate);
        requirePositive("idWrapModulus", idWrapModulus);
        requireNotNull("receiptMode", receiptMode);
        requireNotNegative("intermediateReceipts", intermediateReceipts);
        requireNotNegative("receiptDelayMs", receiptDelayMs);
        requireNotNegative("receiptSpacingMs", receiptSpacingMs);
        requireRate("undeliveredRate", undeliveredRate);
        requireRate("unknownStatusRate", unknownStatusRate);
        requireRate("badTimestampRate", badTimestampRate);
        requireNotNull("vocabulary", vocabulary);
        requirePositive("callbackConcurrency", callbackConcurrency);
        requirePositive("callbackMaxAttempts", callbackMaxAttempts);
        requirePositive("callbackQueueCapacity", callbackQueueCapacity);
        requireRate("callbackLossRate", callbackLossRate);
        requireRate("queryErrorRate", queryErrorRate);
        requireNotNegative("queryLatencyMs", queryLatencyMs);
        requireNotNegative("maxPerSecond", maxPerSecond);
    }

    /** The defaults: 20 ms latency, no errors, one intermediate then a positive final, SMPP vocabulary. */
    public static SimulatorConfig defaults() {
        return builder().build();
    }

    public static SimulatorConfigBuilder builder() {
        return new SimulatorConfigBuilder();
    }

    /** A builder that starts from this configuration, to change a few fields. */
    public SimulatorConfigBuilder toBuilder() {
        return new SimulatorConfigBuilder(this);
    }

    private static void requireText(String name, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + " must not be blank");
        }
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

    private static void requirePositive(String name, long value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + " must be at least 1, was " + value);
        }
    }

    private static void requireRate(String name, double value) {
        if (!(value >= 0.0 && value <= 1.0)) {
            throw new IllegalArgumentException(name + " must be between 0 and 1, was " + value);
        }
    }
}
