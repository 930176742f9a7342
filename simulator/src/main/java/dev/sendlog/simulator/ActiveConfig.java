package dev.sendlog.simulator;

/** A configuration with the random sequence it rolls from; replaced whole when the configuration changes. */
record ActiveConfig(SimulatorConfig config, SimulatorRandom random) {

    static ActiveConfig of(SimulatorConfig config) {
        return new ActiveConfig(config, new SimulatorRandom(config.seed()));
    }

    long sampleLatencyMs() {
        return switch (config.latencyDistribution()) {
            case FIXED -> config.latencyMs();
            case UNIFORM ->
                Math.max(
                        0,
                        random.between(
                                config.latencyMs() - config.latencyJitterMs(),
                                config.latencyMs() + config.latencyJitterMs()));
        };
    }
}
