package dev.sendlog.simulator;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Runs a simulator until the process is killed: {@code --port N} (default 9090) and optionally
 * {@code --config path.json} with a {@link SimulatorConfig}.
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
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(valueAfter(args, i++));
                case "--config" ->
                    config = Json.MAPPER.readValue(
                            Files.readAllBytes(Path.of(valueAfter(args, i++))), SimulatorConfig.class);
                default -> usage("unknown argument " + args[i]);
            }
        }
        ProviderSimulator simulator = ProviderSimulator.start(config, port);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            simulator.close();
                            stopped.countDown();
                        },
                        "simulator-shutdown"));
        System.out.println(simulator.baseUrl());
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
        System.err.println("usage: SimulatorMain [--port N] [--config simulator.json]");
        System.exit(2);
    }
}
