package dev.sendlog.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sendlog.service.config.GatewaySettings;
import dev.sendlog.service.config.SendlogConfiguration;
import dev.sendlog.service.config.WebhookSettings;
import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.FileConfigurationSourceProvider;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.dropwizard.jetty.HttpConnectorFactory;
import java.util.List;
import java.util.Map;
import org.apache.commons.text.StringSubstitutor;
import org.junit.jupiter.api.Test;

/** The shipped config.yml parses and validates as is: "runs as is" starts here. */
class ConfigFileTest {
    private static SendlogConfiguration load(StringSubstitutor substitutor) throws Exception {
        YamlConfigurationFactory<SendlogConfiguration> factory = new YamlConfigurationFactory<>(
                SendlogConfiguration.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw");
        return factory.build(
                new SubstitutingSourceProvider(new FileConfigurationSourceProvider(), substitutor), "../config.yml");
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
                .getApplicationConnectors()
                .getFirst();
        assertThat(app.getIdleTimeout().toSeconds()).isEqualTo(30);
        // Not Jetty's own rate: it refused small bodies read across a pause (HttpSettings).
        assertThat(app.getMinRequestDataPerSecond().toBytes()).isZero();
        assertThat(config.http.minBodyBytesPerSecond.toBytes()).isEqualTo(1024);
        assertThat(config.http.bodyGrace.toSeconds()).isEqualTo(5);
        assertThat(config.receipts.storeTimeout.toSeconds()).isEqualTo(30);
    }

    /**
     * Issue 23 (CPU per message): requests run on virtual threads, so one waiting for the group commit parks without a
     * platform thread, and the thread is not renamed at every request.
     */
    @Test
    void requestsRunOnVirtualThreadsWithoutRenaming() throws Exception {
        DefaultServerFactory server = (DefaultServerFactory)
                load(new EnvironmentVariableSubstitutor(false)).getServerFactory();
        assertThat(server.isEnableVirtualThreads()).isTrue();
        assertThat(server.getEnableThreadNameFilter()).isFalse();
        assertThat(server.getMaxThreads()).isGreaterThanOrEqualTo(256);
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
        assertThat(config.gateways).containsKey(config.defaultGateway);
        assertThat(config.auth.keys)
                .extracting(k -> k.key)
                .containsExactlyInAnyOrder("demo-client-key", "demo-support-key", "demo-admin-key");
    }

    /** Issue 28: scripts/run sends through both gateways, so the shipped smsc gateway binds to simulator.yml's SMSC. */
    @Test
    void theShippedSmppGatewayBindsToTheBuiltInSmscWithItsCredentials() throws Exception {
        SendlogConfiguration shipped = withEnvironment(Map.of());
        dev.sendlog.service.config.GatewaySettings smsc = shipped.gateways.get("smsc");
        assertThat(smsc.isSmpp()).isTrue();
        assertThat(smsc.isComplete()).isTrue();
        assertThat(smsc.smpp.port).isEqualTo(2775);
        assertThat(smsc.smpp.host).isEqualTo("127.0.0.1");
        // that it is what simulator.yml's SMSC listens on with: tools' ShippedSimulatorFileTest
        assertThat(smsc.smpp.longMessages).isEqualTo("udh");
        assertThat(smsc.smpp.resubmitAfterTimeout).isFalse();
    }

    /** Issue 24, item 16: the gateway's token and callback secret were fixed in config.yml, with no warning. */
    @Test
    void theGatewaySecretsComeFromTheEnvironmentAndTheShippedDemoValuesAreWarnedAbout() throws Exception {
        SendlogConfiguration shipped = withEnvironment(Map.of());
        assertThat(shipped.gateways.get("sim").token).isEqualTo(GatewaySettings.DEMO_TOKEN);
        assertThat(shipped.gateways.get("sim").callbackSecret).isEqualTo(GatewaySettings.DEMO_CALLBACK_SECRET);
        List<String> warnings = GatewaySettings.demoValueWarnings(shipped.gateways);
        assertThat(warnings).hasSize(3);
        assertThat(warnings)
                .anySatisfy(w ->
                        assertThat(w).contains("gateways.smsc.smpp.password").contains("SENDLOG_SMPP_SMSC_PASSWORD"));
        assertThat(warnings)
                .anySatisfy(w -> assertThat(w).contains("gateways.sim.token").contains("SENDLOG_GATEWAY_SIM_TOKEN"));
        assertThat(warnings)
                .anySatisfy(w ->
                        assertThat(w).contains("gateways.sim.callbackSecret").contains("SENDLOG_CALLBACK_SIM_SECRET"));
        // The warning names the setting, never the value.
        assertThat(warnings)
                .noneMatch(w ->
                        w.contains(GatewaySettings.DEMO_TOKEN) || w.contains(GatewaySettings.DEMO_CALLBACK_SECRET));

        SendlogConfiguration real = withEnvironment(Map.of(
                "SENDLOG_GATEWAY_SIM_TOKEN",
                "tok-4711",
                "SENDLOG_CALLBACK_SIM_SECRET",
                "sec-0815",
                "SENDLOG_SMPP_SMSC_PASSWORD",
                "pw-1234"));
        assertThat(real.gateways.get("sim").token).isEqualTo("tok-4711");
        assertThat(real.gateways.get("sim").callbackSecret).isEqualTo("sec-0815");
        assertThat(real.gateways.get("smsc").smpp.password).isEqualTo("pw-1234");
        assertThat(GatewaySettings.demoValueWarnings(real.gateways)).isEmpty();

        SendlogConfiguration half = withEnvironment(
                Map.of("SENDLOG_GATEWAY_SIM_TOKEN", "tok-4711", "SENDLOG_SMPP_SMSC_PASSWORD", "pw-1234"));
        assertThat(GatewaySettings.demoValueWarnings(half.gateways))
                .singleElement()
                .asString()
                .contains("callbackSecret");
    }

    @Test
    void theAdminPortHasABindHostOfItsOwnSoExposingTheApiDoesNotExposeIt() throws Exception {
        DefaultServerFactory server =
                (DefaultServerFactory) withEnvironment(Map.of()).getServerFactory();
        assertThat(bindHost(server.getAdminConnectors())).isEqualTo("127.0.0.1");

        SendlogConfiguration exposed = withEnvironment(Map.of("SENDLOG_BIND_HOST", "0.0.0.0"));
        server = (DefaultServerFactory) exposed.getServerFactory();
        assertThat(bindHost(server.getApplicationConnectors())).isEqualTo("0.0.0.0");
        assertThat(bindHost(server.getAdminConnectors())).isEqualTo("127.0.0.1");
        assertThat(exposed.adminPort.allowedHosts).isEmpty();

        SendlogConfiguration admin = withEnvironment(Map.of(
                "SENDLOG_ADMIN_BIND_HOST",
                "10.1.2.3",
                "SENDLOG_ADMIN_ALLOWED_HOSTS",
                "node-7.internal,node-7.internal:18081"));
        server = (DefaultServerFactory) admin.getServerFactory();
        assertThat(bindHost(server.getAdminConnectors())).isEqualTo("10.1.2.3");
        assertThat(bindHost(server.getApplicationConnectors())).isEqualTo("127.0.0.1");
        assertThat(admin.adminPort.allowedHosts).containsExactly("node-7.internal", "node-7.internal:18081");
    }

    /** Issue 27: webhooks allow private targets in the shipped (demo) config, and its secret key is a labelled dev key. */
    @Test
    void theWebhookSettingsShipADevelopmentKeyThatIsWarnedAboutAndTheEnvironmentOverrides() throws Exception {
        SendlogConfiguration shipped = withEnvironment(Map.of());
        assertThat(shipped.webhooks.allowPrivateTargets).isTrue();
        assertThat(shipped.webhooks.secretKey).isEqualTo(WebhookSettings.DEV_SECRET_KEY);
        assertThat(shipped.webhooks.devKeyWarnings())
                .singleElement()
                .asString()
                .contains("SENDLOG_WEBHOOK_SECRET_KEY")
                .doesNotContain(WebhookSettings.DEV_SECRET_KEY);
        assertThat(new WebhookSettings().allowPrivateTargets)
                .as("the code's default refuses private targets")
                .isFalse();

        String key = java.util.Base64.getEncoder().encodeToString(new byte[32]);
        SendlogConfiguration real =
                withEnvironment(Map.of("SENDLOG_WEBHOOK_SECRET_KEY", key, "SENDLOG_WEBHOOK_ALLOW_PRIVATE", "false"));
        assertThat(real.webhooks.secretKey).isEqualTo(key);
        assertThat(real.webhooks.allowPrivateTargets).isFalse();
        assertThat(real.webhooks.devKeyWarnings()).isEmpty();
        assertThat(real.webhooks.isSecretKeyWellFormed()).isTrue();

        WebhookSettings wrong = new WebhookSettings();
        wrong.secretKey = "c2hvcnQ=";
        assertThat(wrong.isSecretKeyWellFormed()).as("8 bytes").isFalse();
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> withEnvironment(Map.of("SENDLOG_WEBHOOK_SECRET_KEY", "c2hvcnQ=")))
                .hasMessageContaining("webhooks.secretKey");
    }
}
