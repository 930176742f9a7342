package dev.sendlog.service.cli;

import dev.sendlog.service.config.Components;
import dev.sendlog.service.config.SendlogConfiguration;
import io.dropwizard.core.Application;
import io.dropwizard.core.cli.ServerCommand;
import io.dropwizard.core.setup.Bootstrap;
import java.util.EnumSet;
import java.util.Set;
import net.sourceforge.argparse4j.inf.Namespace;

/**
 * Runs a subset of the pipeline as its own process ({@code api}, {@code poller}, {@code send-worker},
 * {@code callback-worker}, {@code maintenance}); every process keeps the admin port for health and metrics.
 */
public final class ComponentCommand extends ServerCommand<SendlogConfiguration> {
    private final Set<Components> components;

    public ComponentCommand(
            Application<SendlogConfiguration> application,
            String name,
            String description,
            Set<Components> components) {
        super(application, name, description);
        this.components = EnumSet.copyOf(components);
    }

    @Override
    protected void run(
            Bootstrap<SendlogConfiguration> bootstrap, Namespace namespace, SendlogConfiguration configuration)
            throws Exception {
        configuration.components = EnumSet.copyOf(components);
        super.run(bootstrap, namespace, configuration);
    }
}
