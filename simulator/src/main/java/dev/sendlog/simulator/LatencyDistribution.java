package dev.sendlog.simulator;

/** How the submit latency is sampled around {@code latencyMs}. */
public enum LatencyDistribution {
    /** Always exactly {@code latencyMs}. */
    FIXED,
    /** Uniform in {@code latencyMs ± latencyJitterMs}, never below zero. */
    UNIFORM
}
