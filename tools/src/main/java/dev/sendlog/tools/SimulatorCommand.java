package dev.sendlog.tools;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sendlog.simulator.ProviderSimulator;
import dev.sendlog.simulator.SimulatorConfig;
import dev.sendlog.simulator.smpp.SmscConfig;
import dev.sendlog.simulator.smpp.SmscSimulator;
import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.core.cli.Command;
import io.dropwizard.core.setup.Bootstrap;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/**
 * {@code simulator [--file simulator.yml] [--port 9090] [--config simulator.json] [--smpp-port 2775] [--smpp-config
 * smsc.json]}: the provider simulator (and the SMSC simulator, with a port), until killed. {@code --file} gives all four
 * in one YAML file ({@link SimulatorFile}; {@code scripts/run} starts the demo's from the project's
 * {@code simulator.yml}); a flag given as well wins over the file.
 */
public final class SimulatorCommand extends Command {
    public SimulatorCommand() {
        super("simulator", "Runs the provider simulator (API.md, provider contract) until killed");
    }

    @Override
    public void configure(Subparser subparser) {
        subparser
                .addArgument("--file")
                .help("simulator.yml: port, config, smppPort and smpp in one YAML file, ${NAME:-default} from the"
                        + " environment");
        subparser.addArgument("--port").type(Integer.class).help("port on 127.0.0.1 (default 9090)");
        subparser.addArgument("--config").help("a SimulatorConfig as JSON (absent fields keep their defaults)");
        subparser
                .addArgument("--smpp-port")
                .type(Integer.class)
                .help("also runs the SMSC simulator (SMPP 3.4) on this port of 127.0.0.1 (0: not)");
        subparser.addArgument("--smpp-config").help("an SmscConfig as JSON (absent fields keep their defaults)");
        subparser
                .addArgument("--smpp-journal")
                .help("appends every submit the SMSC accepts to this file, a JSON line each");
    }

    @Override
    public void run(Bootstrap<?> bootstrap, Namespace namespace) throws Exception {
        ObjectMapper mapper = bootstrap.getObjectMapper();
        String filePath = namespace.getString("file");
        SimulatorFile file = filePath == null
                ? new SimulatorFile()
                : SimulatorFile.read(Path.of(filePath), new EnvironmentVariableSubstitutor(false));
        String configPath = namespace.getString("config");
        SimulatorConfig config = configPath == null
                ? file.config
                : mapper.readValue(Files.readAllBytes(Path.of(configPath)), SimulatorConfig.class);
        Integer port = namespace.getInt("port");
        ProviderSimulator simulator = ProviderSimulator.start(config, port == null ? file.port : port);
        Integer smppFlag = namespace.getInt("smpp_port");
        int smppPort = smppFlag == null ? file.smppPort : smppFlag;
        String smppPath = namespace.getString("smpp_config");
        SmscSimulator smsc = smppPort <= 0
                ? null
                : SmscSimulator.start(
                        smppPath == null
                                ? file.smpp
                                : mapper.readValue(Files.readAllBytes(Path.of(smppPath)), SmscConfig.class),
                        smppPort);
        String journal = namespace.getString("smpp_journal");
        if (smsc != null && journal != null) {
            smsc.journalTo(Path.of(journal));
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            simulator.close();
                            if (smsc != null) {
                                smsc.close();
                            }
                            stopped.countDown();
                        },
                        "simulator-shutdown"));
        System.out.println("simulator listening on " + simulator.baseUrl());
        if (smsc != null) {
            System.out.println("smpp listening on 127.0.0.1:" + smsc.port());
        }
        stopped.await();
    }
}
