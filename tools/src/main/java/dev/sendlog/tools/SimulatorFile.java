package dev.sendlog.tools;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.sendlog.simulator.SimulatorConfig;
import dev.sendlog.simulator.smpp.SmscConfig;
import io.dropwizard.jackson.Jackson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.commons.text.StringSubstitutor;

/**
 * The simulators a {@code simulator --file simulator.yml} runs: the provider simulator's port and configuration, and the
 * SMSC simulator's (its port 0: none). YAML, with {@code ${NAME:-default}} taken from the environment as in
 * {@code config.yml}, so the demo's simulators read the same secrets as the gateways that call them.
 */
public final class SimulatorFile {
    @JsonProperty
    public int port = 9090;

    @JsonProperty
    public SimulatorConfig config = SimulatorConfig.defaults();

    /** The SMSC simulator's port on 127.0.0.1, started beside the HTTP one when above 0 (0: no SMSC simulator). */
    @JsonProperty
    public int smppPort = 0;

    @JsonProperty
    public SmscConfig smpp = SmscConfig.defaults();

    /** Reads {@code file}, its {@code ${NAME:-default}} replaced by {@code substitutor}. */
    public static SimulatorFile read(Path file, StringSubstitutor substitutor) throws IOException {
        String text = substitutor.replace(Files.readString(file));
        ObjectMapper yaml =
                Jackson.newObjectMapper(new YAMLFactory()).enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        SimulatorFile read = yaml.readValue(text, SimulatorFile.class);
        if (read.port < 0 || read.port > 65_535 || read.smppPort < 0 || read.smppPort > 65_535) {
            throw new IllegalArgumentException(file + ": port and smppPort must be between 0 and 65535");
        }
        return read;
    }
}
