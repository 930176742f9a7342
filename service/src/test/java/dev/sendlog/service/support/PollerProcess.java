package dev.sendlog.service.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sendlog.service.SendlogApplication;
import io.dropwizard.testing.ResourceHelpers;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A {@code poller} as an operating-system process of its own, on the test's database and Redis: it can be killed
 * with {@code kill -9}, paused with {@code SIGSTOP} and resumed, as a real deployment's pollers can. Its lease
 * owner name is {@code poller-<host>-<pid>}, so the test can read its shards from {@code shard_leases}.
 */
public final class PollerProcess implements AutoCloseable {
    private static final String HOST = "proc";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Process process;
    private final int appPort;
    private final int adminPort;
    private final Path log;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    private PollerProcess(Process process, int appPort, int adminPort, Path log) {
        this.process = process;
        this.appPort = appPort;
        this.adminPort = adminPort;
        this.log = log;
    }

    /** Starts a poller on the harness's database and Redis with the given configuration overrides (key, value...). */
    public static PollerProcess start(ServiceHarness service, String name, Map<String, String> overrides)
            throws IOException {
        return start(service, name, "poller", overrides);
    }

    /**
     * Starts the application's {@code command} ({@code poller}, or {@code server} with {@code components} among the
     * overrides) on the harness's database, Redis and simulator.
     */
    public static PollerProcess start(
            ServiceHarness service, String name, String command, Map<String, String> overrides) throws IOException {
        int appPort = dev.sendlog.testkit.Ports.free();
        int adminPort = dev.sendlog.testkit.Ports.free();
        List<String> cmd = new ArrayList<>(List.of(
                ProcessHandle.current().info().command().orElse("java"),
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"))));
        Map<String, String> settings = new java.util.LinkedHashMap<>(Map.of(
                "server.applicationConnectors[0].port", Integer.toString(appPort),
                "server.adminConnectors[0].port", Integer.toString(adminPort),
                "database.url", service.database().jdbcUrl(),
                "redis.sendUri", service.redis().uri(),
                "redis.keyPrefix", service.redisPrefix(),
                "gateways.sim.baseUrl", service.simulator().baseUrl()));
        settings.putAll(service.feedOverrides());
        settings.putAll(overrides);
        settings.forEach((k, v) -> cmd.add("-Ddw." + k + "=" + v));
        cmd.addAll(List.of(
                SendlogApplication.class.getName(), command, ResourceHelpers.resourceFilePath("test-config.yml")));
        Path dir = Path.of("target", "poller-processes");
        Files.createDirectories(dir);
        Path log = dir.resolve(name + ".log");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("HOSTNAME", HOST);
        return new PollerProcess(pb.start(), appPort, adminPort, log);
    }

    /** Its API's base URL (for a {@code server} process with the API among its components). */
    public String apiUrl() {
        return "http://127.0.0.1:" + appPort;
    }

    /** Its admin port's base URL. */
    public String adminUrl() {
        return "http://127.0.0.1:" + adminPort;
    }

    /** SIGTERM, as an orchestrator stops a process in a rolling restart; returns at once. */
    public void terminate() throws IOException, InterruptedException {
        signal("TERM");
    }

    /** Waits for the process to end; its exit status. */
    public int awaitExit(Duration atMost) throws InterruptedException {
        if (!process.waitFor(atMost.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException(
                    "process " + process.pid() + " still running after " + atMost + "; see " + log.toAbsolutePath());
        }
        return process.exitValue();
    }

    /** What it has logged so far. */
    public String log() throws IOException {
        return Files.readString(log);
    }

    /** The name this process takes leases under. */
    public String owner() {
        return "poller-" + HOST + "-" + process.pid();
    }

    /** Whether its admin port answers /ping (it has started and owns what it can). */
    public boolean ready() {
        if (!process.isAlive()) {
            throw new IllegalStateException(
                    "poller process exited with " + process.exitValue() + "; see " + log.toAbsolutePath());
        }
        try {
            return http.send(
                                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/ping"))
                                            .timeout(Duration.ofSeconds(1))
                                            .build(),
                                    HttpResponse.BodyHandlers.discarding())
                            .statusCode()
                    == 200;
        } catch (IOException notYet) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** A counter from its admin metrics. */
    public long counter(String name) throws IOException, InterruptedException {
        JsonNode metrics = JSON.readTree(http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body());
        return metrics.path("counters").path(name).path("count").asLong();
    }

    /** kill -9: no shutdown hook runs, no lease is given back. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    /** SIGSTOP: the process stops renewing and publishing, as in a long GC pause or a frozen VM. */
    public void pause() throws IOException, InterruptedException {
        signal("STOP");
    }

    /** SIGCONT: it carries on from where it was, with what it believed it owned. */
    public void resume() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String signal) throws IOException, InterruptedException {
        int rc = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                .inheritIO()
                .start()
                .waitFor();
        if (rc != 0) {
            throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed with " + rc);
        }
    }

    @Override
    public void close() throws InterruptedException, IOException {
        if (process.isAlive()) {
            resume(); // a paused process would not act on the SIGTERM
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        }
    }
}
