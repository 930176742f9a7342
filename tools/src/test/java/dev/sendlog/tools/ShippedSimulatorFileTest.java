package dev.sendlog.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sendlog.service.config.GatewaySettings;
import dev.sendlog.service.config.SendlogConfiguration;
import io.dropwizard.configuration.FileConfigurationSourceProvider;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.commons.text.StringSubstitutor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * scripts/run starts the demo's simulators from simulator.yml beside the server on config.yml: the gateways of the one
 * must reach the simulators of the other and agree on every secret, with the environment's values or the demo's.
 */
class ShippedSimulatorFileTest {
    private static final Path PROJECT = Path.of("..");

    @Test
    void theShippedGatewaysReachTheShippedSimulatorsWithTheSameSecrets() throws Exception {
        for (Map<String, String> environment : java.util.List.of(
                Map.<String, String>of(),
                Map.of(
                        "SENDLOG_GATEWAY_SIM_TOKEN", "tok-4711",
                        "SENDLOG_CALLBACK_SIM_SECRET", "sec-0815",
                        "SENDLOG_SMPP_SMSC_PASSWORD", "pw-1234"))) {
            SendlogConfiguration config = config(environment);
            SimulatorFile simulators = SimulatorFile.read(PROJECT.resolve("simulator.yml"), substitutor(environment));

            GatewaySettings sim = config.gateways.get("sim");
            assertThat(URI.create(sim.baseUrl).getPort()).isEqualTo(simulators.port);
            assertThat(simulators.config.token()).isEqualTo(sim.token);
            assertThat(simulators.config.callbackSecret()).isEqualTo(sim.callbackSecret);

            GatewaySettings smsc = config.gateways.get("smsc");
            assertThat(smsc.smpp.port).isEqualTo(simulators.smppPort).isPositive();
            assertThat(simulators.smpp.systemId()).isEqualTo(smsc.smpp.systemId);
            assertThat(simulators.smpp.password()).isEqualTo(smsc.smpp.password);
        }
        assertThat(SimulatorFile.read(
                                PROJECT.resolve("simulator.yml"), substitutor(Map.of("SENDLOG_GATEWAY_SIM_TOKEN", "x")))
                        .config
                        .token())
                .isEqualTo("x");
    }

    @Test
    void aFileWithAnUnknownSettingOrABadPortIsRefused(@TempDir Path dir) throws Exception {
        Path typo = dir.resolve("typo.yml");
        Files.writeString(typo, "port: 9090\nsmppPrt: 2775\n");
        assertThatThrownBy(() -> SimulatorFile.read(typo, substitutor(Map.of())))
                .hasMessageContaining("smppPrt");
        Path port = dir.resolve("port.yml");
        Files.writeString(port, "port: 70000\n");
        assertThatThrownBy(() -> SimulatorFile.read(port, substitutor(Map.of())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("between 0 and 65535");
    }

    private static StringSubstitutor substitutor(Map<String, String> environment) {
        StringSubstitutor substitutor = new StringSubstitutor(environment);
        substitutor.setEnableUndefinedVariableException(false);
        return substitutor;
    }

    private static SendlogConfiguration config(Map<String, String> environment) throws Exception {
        return new YamlConfigurationFactory<>(
                        SendlogConfiguration.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw")
                .build(
                        new SubstitutingSourceProvider(new FileConfigurationSourceProvider(), substitutor(environment)),
                        PROJECT.resolve("config.yml").toString());
    }
}
