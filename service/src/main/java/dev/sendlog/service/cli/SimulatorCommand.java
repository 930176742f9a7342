package dev.sendlog.service.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sendlog.simulator.ProviderSimulator;
import dev.sendlog.simulator.SimulatorConfig;
import io.dropwizard.core.cli.Command;
import io.dropwizard.core.setup.Bootstrap;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/** {@code simulator [--port 9090] [--config simulator.json]}: the provider simulator alone, until killed. */
public final class SimulatorCommand extends Command {
    public SimulatorCommand() {
        super("simulator", "Runs the provider simulator (API.md, provider contract) until killed");
    }

    @Override
    public void configure(Subparser subparser) {
        subparser.addArgument("--port").type(Integer.class).setDefault(9090).help("port on 127.0.0.1");
        subparser.addArgument("--config").help("a SimulatorConfig as JSON (absent fields keep their defaults)");
    }

    @Override
    public void run(Bootstrap<?> bootstrap, Namespace namespace) throws Exception {
        ObjectMapper mapper = bootstrap.getObjectMapper();
        String configPath = namespace.getString("config");
        SimulatorConfig config = configPath == null
                ? SimulatorConfig.defaults()
                : mapper.readValue(Files.readAllBytes(Path.of(configPath)), SimulatorConfig.class);
        ProviderSimulator simulator = ProviderSimulator.start(config, namespace.getInt("port"));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            simulator.close();
                            stopped.countDown();
                        },
                        "simulator-shutdown"));
        System.out.println("simulator listening on " + simulator.baseUrl());
        stopped.await();
    }
}
