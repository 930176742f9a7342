package dev.sendlog.tools.chaos;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One process of the chaos fleet (an API, a poller, a worker... from sendlog.jar; a simulator from the tools jar),
 * killed with SIGKILL and started again on the same ports, as an operator's supervisor would.
 */
public final class ServiceProcess {
    private final String name;
    private final List<String> command;
    private final Map<String, String> environment;
    private final Path log;
    private final int adminPort;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    private Process process;

    public ServiceProcess(String name, List<String> command, Map<String, String> environment, Path log, int adminPort) {
        this.name = name;
        this.command = List.copyOf(command);
        this.environment = Map.copyOf(environment);
        this.log = log;
        this.adminPort = adminPort;
    }

    public String name() {
        return name;
    }

    /** The process id of the running JVM (for a benchmark that reads its threads' scheduling figures). */
    public synchronized long pid() {
        return process.pid();
    }

    public synchronized void start() throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().putAll(environment);
        process = pb.start();
    }

    /** Waits until the admin port answers /ping; false if the process died or the time ran out. */
    public boolean awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!isAlive()) {
                return false;
            }
            try {
                HttpResponse<String> r = http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/ping"))
                                .timeout(Duration.ofSeconds(1))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return true;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        return false;
    }

    /** kill -9: no shutdown hook runs, nothing is released. */
    public synchronized void kill() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();
            process.waitFor();
        }
    }

    /** A clean stop (SIGTERM): what the end of the run does. */
    public synchronized void stop() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        }
    }

    public synchronized boolean isAlive() {
        return process != null && process.isAlive();
    }

    public static List<String> javaCommand(String jar, List<String> jvmOptions, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(jvmOptions);
        cmd.add("-jar");
        cmd.add(jar);
        cmd.addAll(args);
        return cmd;
    }

    /** Runs {@code db migrate config.yml} from {@code jar} with {@code environment} and waits for it; its output goes to {@code log}. */
    public static void migrate(String jar, Map<String, String> environment, Path log)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(javaCommand(jar, List.of(), List.of("db", "migrate", "config.yml")))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        pb.environment().putAll(environment);
        if (pb.start().waitFor() != 0) {
            throw new IllegalStateException("migration failed; see " + log);
        }
    }
}
