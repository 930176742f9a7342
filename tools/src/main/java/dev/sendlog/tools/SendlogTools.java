package dev.sendlog.tools;

import io.dropwizard.core.Application;
import io.dropwizard.core.Configuration;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;

/**
 * {@code java -jar tools/target/sendlog-tools.jar <command>}: what tests and measures sendlog, kept out of the product
 * jar. {@code chaos} (the chaos run), {@code loadtest} (the load generator and the benchmarks), {@code simulator} (the
 * provider and SMSC simulators as a process). The servers these start come from {@code sendlog.jar} ({@link Jars}).
 */
public final class SendlogTools extends Application<Configuration> {
    public static void main(String[] args) throws Exception {
        System.setProperty("org.jooq.no-logo", "true");
        System.setProperty("org.jooq.no-tips", "true");
        new SendlogTools().run(args);
    }

    @Override
    public String getName() {
        return "sendlog-tools";
    }

    @Override
    public void initialize(Bootstrap<Configuration> bootstrap) {
        bootstrap.addCommand(new ChaosCommand());
        bootstrap.addCommand(new LoadTestCommand());
        bootstrap.addCommand(new SimulatorCommand());
    }

    /** No server and no configuration check: these tools start servers, they are none. */
    @Override
    protected void addDefaultCommands(Bootstrap<Configuration> bootstrap) {}

    @Override
    public void run(Configuration configuration, Environment environment) {
        throw new UnsupportedOperationException(
                "sendlog-tools runs no server: name a command (chaos, loadtest, simulator)");
    }
}
