package dev.sendlog.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.sendlog.simulator.SimulatorConfig;

/** The built-in provider simulator, started inside the server process when enabled (the demo default). */
public class SimulatorSettings {
    @JsonProperty
    public boolean enabled = false;

    @JsonProperty
    public int port = 9090;

    @JsonProperty
    public SimulatorConfig config = SimulatorConfig.defaults();
}
