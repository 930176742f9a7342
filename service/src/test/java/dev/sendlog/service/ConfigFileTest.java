package dev.sendlog.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sendlog.service.config.SendlogConfiguration;
import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.FileConfigurationSourceProvider;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import org.junit.jupiter.api.Test;

/** The shipped config.yml parses and validates as is: "runs as is" starts here. */
class ConfigFileTest {
    @Test
    void shippedConfigParsesWithItsDefaults() throws Exception {
        YamlConfigurationFactory<SendlogConfiguration> factory = new YamlConfigurationFactory<>(
                SendlogConfiguration.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw");
        SendlogConfiguration config = factory.build(new SubstitutingSourceProvider(new FileConfigurationSourceProvider(),
                new EnvironmentVariableSubstitutor(false)), "../config.yml");
        assertThat(config.database.url).isEmpty();
        assertThat(config.redis.keyPrefix).isEqualTo("sendlog:");
        assertThat(config.accept.groupCommit).isTrue();
        assertThat(config.simulator.enabled).isTrue();
        assertThat(config.gateways).containsKey(config.defaultGateway);
        assertThat(config.auth.keys).extracting(k -> k.key)
                .containsExactlyInAnyOrder("demo-client-key", "demo-support-key", "demo-admin-key");
    }
}
