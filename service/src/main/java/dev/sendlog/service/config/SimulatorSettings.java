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

    /** The SMSC simulator's port on 127.0.0.1, started beside the HTTP one when above 0 (0: no SMSC simulator). */
    @jakarta.validation.constraints.Min(0)
    @jakarta.validation.constraints.Max(65_535)
    @JsonProperty
    public int smppPort = 0;

    @JsonProperty
    public dev.sendlog.simulator.smpp.SmscConfig smpp = dev.sendlog.simulator.smpp.SmscConfig.defaults();
}
