package dev.sendlog.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sendlog.service.config.SendlogConfiguration;
import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.FileConfigurationSourceProvider;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.dropwizard.jetty.HttpConnectorFactory;
import java.util.Map;
import org.apache.commons.text.StringSubstitutor;
import org.junit.jupiter.api.Test;

/** The shipped config.yml parses and validates as is: "runs as is" starts here. */
class ConfigFileTest {
    private static SendlogConfiguration load(StringSubstitutor substitutor) throws Exception {
        YamlConfigurationFactory<SendlogConfiguration> factory = new YamlConfigurationFactory<>(
                SendlogConfiguration.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw");
        return factory.build(new SubstitutingSourceProvider(new FileConfigurationSourceProvider(), substitutor), "../config.yml");
    }

    /** The shipped file with these environment variables set (and no others). */
    private static SendlogConfiguration withEnvironment(Map<String, String> environment) throws Exception {
        StringSubstitutor substitutor = new StringSubstitutor(environment);
        substitutor.setEnableUndefinedVariableException(false);
        return load(substitutor);
    }

    /** Issue 24 item 5: slow clients are bounded (the connector's idle timeout, EagerBody's rate and grace). */
    @Test
    void theApplicationConnectorSetsADataRateAndAnIdleTimeoutForSlowClients() throws Exception {
        SendlogConfiguration config = load(new EnvironmentVariableSubstitutor(false));
        HttpConnectorFactory app = (HttpConnectorFactory) ((DefaultServerFactory) config.getServerFactory())
                .getApplicationConnectors().getFirst();
        assertThat(app.getIdleTimeout().toSeconds()).isEqualTo(30);
        // Not Jetty's own rate: it refused small bodies read across a pause (HttpSettings).
        assertThat(app.getMinRequestDataPerSecond().toBytes()).isZero();
        assertThat(config.http.minBodyBytesPerSecond.toBytes()).isEqualTo(1024);
        assertThat(config.http.bodyGrace.toSeconds()).isEqualTo(5);
        assertThat(config.receipts.storeTimeout.toSeconds()).isEqualTo(30);
    }

    private static String bindHost(java.util.List<io.dropwizard.jetty.ConnectorFactory> connectors) {
        return ((HttpConnectorFactory) connectors.getFirst()).getBindHost();
    }

    @Test
    void shippedConfigParsesWithItsDefaults() throws Exception {
        SendlogConfiguration config = load(new EnvironmentVariableSubstitutor(false));
        assertThat(config.database.url).isEmpty();
        assertThat(config.redis.keyPrefix).isEqualTo("sendlog:");
        assertThat(config.accept.groupCommit).isTrue();
        assertThat(config.simulator.enabled).isTrue();
        assertThat(config.gateways).containsKey(config.defaultGateway);
        assertThat(config.auth.keys).extracting(k -> k.key)
                .containsExactlyInAnyOrder("demo-client-key", "demo-support-key", "demo-admin-key");
    }

    @Test
    void theAdminPortHasABindHostOfItsOwnSoExposingTheApiDoesNotExposeIt() throws Exception {
        DefaultServerFactory server = (DefaultServerFactory) withEnvironment(Map.of()).getServerFactory();
        assertThat(bindHost(server.getAdminConnectors())).isEqualTo("127.0.0.1");

        SendlogConfiguration exposed = withEnvironment(Map.of("SENDLOG_BIND_HOST", "0.0.0.0"));
        server = (DefaultServerFactory) exposed.getServerFactory();
        assertThat(bindHost(server.getApplicationConnectors())).isEqualTo("0.0.0.0");
        assertThat(bindHost(server.getAdminConnectors())).isEqualTo("127.0.0.1");
        assertThat(exposed.adminPort.allowedHosts).isEmpty();

        SendlogConfiguration admin = withEnvironment(Map.of("SENDLOG_ADMIN_BIND_HOST", "10.1.2.3",
                "SENDLOG_ADMIN_ALLOWED_HOSTS", "node-7.internal,node-7.internal:18081"));
        server = (DefaultServerFactory) admin.getServerFactory();
        assertThat(bindHost(server.getAdminConnectors())).isEqualTo("10.1.2.3");
        assertThat(bindHost(server.getApplicationConnectors())).isEqualTo("127.0.0.1");
        assertThat(admin.adminPort.allowedHosts).containsExactly("node-7.internal", "node-7.internal:18081");
    }
}
