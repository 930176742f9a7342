package dev.sendlog.simulator;

import dev.sendlog.simulator.smpp.SmscConfig;
import dev.sendlog.simulator.smpp.SmscSimulator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Runs a simulator until the process is killed: {@code --port N} (default 9090) and optionally
 * {@code --config path.json} with a {@link SimulatorConfig}. With {@code --smpp-port N} an SMSC simulator speaking
 * SMPP 3.4 runs beside it on 127.0.0.1, with {@link SmscConfig#defaults()} or {@code --smpp-config path.json} (an
 * {@link SmscConfig}; absent fields keep their defaults).
 */
public final class SimulatorMain {
    private static final int DEFAULT_PORT = 9090;

    private SimulatorMain() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", "simulator-logback.xml");
        }
        int port = DEFAULT_PORT;
        SimulatorConfig config = SimulatorConfig.defaults();
        Integer smppPort = null;
        SmscConfig smscConfig = SmscConfig.defaults();
        boolean smscConfigGiven = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(valueAfter(args, i++));
                case "--config" ->
                    config = Json.MAPPER.readValue(
                            Files.readAllBytes(Path.of(valueAfter(args, i++))), SimulatorConfig.class);
                case "--smpp-port" -> smppPort = Integer.parseInt(valueAfter(args, i++));
                case "--smpp-config" -> {
                    smscConfig =
                            Json.MAPPER.readValue(Files.readAllBytes(Path.of(valueAfter(args, i++))), SmscConfig.class);
                    smscConfigGiven = true;
                }
                default -> usage("unknown argument " + args[i]);
            }
        }
        if (smscConfigGiven && smppPort == null) {
            usage("--smpp-config needs --smpp-port");
        }
        ProviderSimulator simulator = ProviderSimulator.start(config, port);
        SmscSimulator smsc = smppPort == null ? null : SmscSimulator.start(smscConfig, smppPort);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            if (smsc != null) {
                                smsc.close();
                            }
                            simulator.close();
                            stopped.countDown();
                        },
                        "simulator-shutdown"));
        System.out.println(simulator.baseUrl());
        if (smsc != null) {
            System.out.println("smpp listening on 127.0.0.1:" + smsc.port());
        }
        System.out.flush();
        stopped.await();
    }

    private static String valueAfter(String[] args, int index) {
        if (index + 1 >= args.length) {
            usage(args[index] + " needs a value");
        }
        return args[index + 1];
    }

    private static void usage(String problem) {
        System.err.println(problem);
        System.err.println(
                "usage: SimulatorMain [--port N] [--config simulator.json] [--smpp-port N [--smpp-config smsc.json]]");
        System.exit(2);
    }
}
