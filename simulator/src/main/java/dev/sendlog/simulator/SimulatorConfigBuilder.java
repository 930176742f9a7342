package dev.sendlog.simulator;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.annotation.JsonPOJOBuilder;

/** Builds a {@link SimulatorConfig}; its field initialisers are the defaults, also for JSON. */
@JsonPOJOBuilder(withPrefix = "")
@JsonIgnoreProperties(ignoreUnknown = false)
public final class SimulatorConfigBuilder {
    private String token = "sim-token";
    private String callbackSecret = "sim-secret";
    private long latencyMs = 20;
    private long latencyJitterMs = 0;
    private LatencyDistribution latencyDistribution = LatencyDistribution.FIXED;
    private double transientErrorRate = 0.0;
    private double permanentErrorRate = 0.0;
    private double dropAfterAcceptRate = 0.0;
    private long idWrapModulus = 1_000_000_000L;
    private ReceiptMode receiptMode = ReceiptMode.FINAL;
    private int intermediateReceipts = 1;
    private long receiptDelayMs = 50;
    private long receiptSpacingMs = 5;
    private double undeliveredRate = 0.0;
    private double unknownStatusRate = 0.0;
    private double badTimestampRate = 0.0;
    private Vocabulary vocabulary = Vocabulary.SMPP;
    private boolean echoReference = true;
    private Long seed = null;
    private int callbackConcurrency = 64;
    private int callbackMaxAttempts = 10;
    private int callbackQueueCapacity = 100_000;
    private double callbackLossRate = 0.0;
    private double queryErrorRate = 0.0;
    private long queryLatencyMs = 0;
    private int maxPerSecond = 0;

    public SimulatorConfigBuilder() {}

    SimulatorConfigBuilder(SimulatorConfig from) {
        token = from.token();
        callbackSecret = from.callbackSecret();
        latencyMs = from.latencyMs();
        latencyJitterMs = from.latencyJitterMs();
        latencyDistribution = from.latencyDistribution();
        transientErrorRate = from.transientErrorRate();
        permanentErrorRate = from.permanentErrorRate();
        dropAfterAcceptRate = from.dropAfterAcceptRate();
        idWrapModulus = from.idWrapModulus();
        receiptMode = from.receiptMode();
        intermediateReceipts = from.intermediateReceipts();
        receiptDelayMs = from.receiptDelayMs();
        receiptSpacingMs = from.receiptSpacingMs();
        undeliveredRate = from.undeliveredRate();
        unknownStatusRate = from.unknownStatusRate();
        badTimestampRate = from.badTimestampRate();
        vocabulary = from.vocabulary();
        echoReference = from.echoReference();
        seed = from.seed();
        callbackConcurrency = from.callbackConcurrency();
        callbackMaxAttempts = from.callbackMaxAttempts();
        callbackQueueCapacity = from.callbackQueueCapacity();
        callbackLossRate = from.callbackLossRate();
        queryErrorRate = from.queryErrorRate();
        queryLatencyMs = from.queryLatencyMs();
        maxPerSecond = from.maxPerSecond();
    }

    public SimulatorConfigBuilder token(String value) {
        token = value;
        return this;
    }

    public SimulatorConfigBuilder callbackSecret(String value) {
        callbackSecret = value;
        return this;
    }

    public SimulatorConfigBuilder latencyMs(long value) {
        latencyMs = value;
        return this;
    }

    public SimulatorConfigBuilder latencyJitterMs(long value) {
        latencyJitterMs = value;
        return this;
    }

    public SimulatorConfigBuilder latencyDistribution(LatencyDistribution value) {
        latencyDistribution = value;
        return this;
    }

    public SimulatorConfigBuilder transientErrorRate(double value) {
        transientErrorRate = value;
        return this;
    }

    public SimulatorConfigBuilder permanentErrorRate(double value) {
        permanentErrorRate = value;
        return this;
    }

    public SimulatorConfigBuilder dropAfterAcceptRate(double value) {
        dropAfterAcceptRate = value;
        return this;
    }

    public SimulatorConfigBuilder idWrapModulus(long value) {
        idWrapModulus = value;
        return this;
    }

    public SimulatorConfigBuilder receiptMode(ReceiptMode value) {
        receiptMode = value;
        return this;
    }

    public SimulatorConfigBuilder intermediateReceipts(int value) {
        intermediateReceipts = value;
        return this;
    }

    public SimulatorConfigBuilder receiptDelayMs(long value) {
        receiptDelayMs = value;
        return this;
    }

    public SimulatorConfigBuilder receiptSpacingMs(long value) {
        receiptSpacingMs = value;
        return this;
    }

    public SimulatorConfigBuilder undeliveredRate(double value) {
        undeliveredRate = value;
        return this;
    }

    public SimulatorConfigBuilder unknownStatusRate(double value) {
        unknownStatusRate = value;
        return this;
    }

    public SimulatorConfigBuilder badTimestampRate(double value) {
        badTimestampRate = value;
        return this;
    }

    public SimulatorConfigBuilder vocabulary(Vocabulary value) {
        vocabulary = value;
        return this;
    }

    public SimulatorConfigBuilder echoReference(boolean value) {
        echoReference = value;
        return this;
    }

    public SimulatorConfigBuilder seed(Long value) {
        seed = value;
        return this;
    }

    public SimulatorConfigBuilder callbackConcurrency(int value) {
        callbackConcurrency = value;
        return this;
    }

    public SimulatorConfigBuilder callbackMaxAttempts(int value) {
        callbackMaxAttempts = value;
        return this;
    }

    public SimulatorConfigBuilder callbackQueueCapacity(int value) {
        callbackQueueCapacity = value;
        return this;
    }

    public SimulatorConfigBuilder callbackLossRate(double value) {
        callbackLossRate = value;
        return this;
    }

    public SimulatorConfigBuilder queryErrorRate(double value) {
        queryErrorRate = value;
        return this;
    }

    public SimulatorConfigBuilder queryLatencyMs(long value) {
        queryLatencyMs = value;
        return this;
    }

    public SimulatorConfigBuilder maxPerSecond(int value) {
        maxPerSecond = value;
        return this;
    }

    public SimulatorConfig build() {
        return new SimulatorConfig(
                token,
                callbackSecret,
                latencyMs,
                latencyJitterMs,
                latencyDistribution,
                transientErrorRate,
                permanentErrorRate,
                dropAfterAcceptRate,
                idWrapModulus,
                receiptMode,
                intermediateReceipts,
                receiptDelayMs,
                receiptSpacingMs,
                undeliveredRate,
                unknownStatusRate,
                badTimestampRate,
                vocabulary,
                echoReference,
                seed,
                callbackConcurrency,
                callbackMaxAttempts,
                callbackQueueCapacity,
                callbackLossRate,
                queryErrorRate,
                queryLatencyMs,
                maxPerSecond);
    }
}
