package dev.sendlog.tools.loadtest;

import dev.sendlog.infra.LocalPostgres;
import dev.sendlog.infra.RedisOptions;
import dev.sendlog.infra.RedisProcess;
import dev.sendlog.tools.Jars;
import dev.sendlog.tools.chaos.ServiceProcess;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a multi-process benchmark runs on: a PostgreSQL, a Redis and the provider simulator of its own (so no other
 * work on the machine's shared servers skews it), a fresh {@code sendlog} database per cell, and sendlog processes
 * started from sendlog.jar with their admin tasks (the simulator from the tools jar).
 */
final class BenchServers implements AutoCloseable {
    /** Tasks on the admin port need an admin key (API.md, "Admin port"). */
    private static final String ADMIN_KEY = "demo-admin-key";

    private final String jar;
    private final Path dir;
    private LocalPostgres postgres;
    private RedisProcess redis;
    private ServiceProcess simulator;
    private int simulatorPort;

    private BenchServers(String jar, Path dir) {
        this.jar = jar;
        this.dir = dir;
    }

    /** Starts the three servers; the simulator answers every submit after {@code simulatorLatencyMs}, with no receipts. */
    static BenchServers start(String jar, Path dir, Map<String, String> postgresSettings, int simulatorLatencyMs)
            throws IOException, InterruptedException {
        Files.createDirectories(dir.resolve("tmp"));
        BenchServers s = new BenchServers(jar, dir);
        try {
            s.postgres = LocalPostgres.start(dir.resolve("postgres"), 0, postgresSettings);
            s.redis = RedisProcess.start(RedisOptions.inDirectory(dir.resolve("redis")));
            s.simulatorPort = port();
            Path simConfig = dir.resolve("simulator.json");
            Files.writeString(simConfig, "{\"latencyMs\": " + simulatorLatencyMs + ", \"receiptMode\": \"NONE\"}");
            s.simulator = new ServiceProcess(
                    "simulator",
                    ServiceProcess.javaCommand(
                            Jars.tools(),
                            List.of("-Xmx256m"),
                            List.of(
                                    "simulator",
                                    "--port",
                                    Integer.toString(s.simulatorPort),
                                    "--config",
                                    simConfig.toString())),
                    Map.of(),
                    dir.resolve("simulator.log"),
                    s.simulatorPort);
            s.simulator.start();
            return s;
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /** Waits until the simulator answers; the caller changes its configuration only then. */
    void awaitSimulator() throws InterruptedException {
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (System.nanoTime() < deadline && simulator.isAlive()) {
            try {
                if (http.send(
                                        HttpRequest.newBuilder(URI.create(simulatorUrl() + "/v1/stats"))
                                                .timeout(Duration.ofSeconds(1))
                                                .build(),
                                        HttpResponse.BodyHandlers.discarding())
                                .statusCode()
                        == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(200); // polling a port that is not open yet: nothing to await but the process itself
        }
        throw new IllegalStateException("the simulator did not start; see its log in " + dir);
    }

    /** The provider simulator's base URL (its admin endpoints: {@code /v1/config}, {@code /v1/stats}). */
    String simulatorUrl() {
        return "http://127.0.0.1:" + simulatorPort;
    }

    LocalPostgres postgres() {
        return postgres;
    }

    Path dir() {
        return dir;
    }

    /**
     * The calls Redis has served per command since it started ({@code INFO commandstats}): a benchmark takes two and
     * tells what one stage costs Redis (the shared rate's compare-and-swaps, say).
     */
    Map<String, Long> redisCalls() {
        io.lettuce.core.RedisClient client =
                io.lettuce.core.RedisClient.create(redis.endpoint().uri());
        try (var connection = client.connect()) {
            Map<String, Long> calls = new java.util.TreeMap<>();
            for (String line : connection.sync().info("commandstats").split("\r?\n")) {
                // cmdstat_evalsha:calls=12,usec=...
                if (line.startsWith("cmdstat_")) {
                    String command = line.substring("cmdstat_".length(), line.indexOf(':'));
                    String rest = line.substring(line.indexOf("calls=") + "calls=".length());
                    calls.put(command, Long.parseLong(rest.substring(0, rest.indexOf(','))));
                }
            }
            return calls;
        } finally {
            client.shutdown();
        }
    }

    /** The environment of a sendlog process on these servers, its Redis keys under {@code prefix}. */
    Map<String, String> environment(String prefix, String feed) {
        return Map.of(
                "SENDLOG_DATABASE_URL",
                "jdbc:postgresql://127.0.0.1:" + postgres.endpoint().port() + "/sendlog",
                "SENDLOG_REDIS_SEND_URI",
                redis.endpoint().uri(),
                "SENDLOG_REDIS_CALLBACK_URI",
                redis.endpoint().uri(),
                "SENDLOG_REDIS_PREFIX",
                prefix,
                "SENDLOG_SIM_URL",
                "http://127.0.0.1:" + simulatorPort,
                "SENDLOG_FEED",
                feed);
    }

    /** Drops and creates the {@code sendlog} database (and any replication slot on it), then migrates it. */
    void freshDatabase(Map<String, String> environment) throws SQLException, IOException, InterruptedException {
        try (Connection c = postgres.endpoint().connect(LocalPostgres.ADMIN_DATABASE);
                Statement st = c.createStatement()) {
            st.execute(
                    "SELECT pg_terminate_backend(active_pid, 10000) FROM pg_replication_slots WHERE database = 'sendlog' AND active");
            st.execute(
                    "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE database = 'sendlog'");
            st.execute("DROP DATABASE IF EXISTS sendlog WITH (FORCE)");
            st.execute("CREATE DATABASE sendlog");
        }
        ServiceProcess.migrate(jar, environment, dir.resolve("migrate.log"));
    }

    /** Starts a sendlog process ({@code server} or {@code poller}) on the two ports; the caller awaits it. */
    ServiceProcess process(
            String name, String command, int port, int adminPort, Map<String, String> env, List<String> extra)
            throws IOException {
        return process(name, command, port, adminPort, env, extra, Path.of("config.yml"));
    }

    /** As above, with a configuration file of the caller's. */
    ServiceProcess process(
            String name,
            String command,
            int port,
            int adminPort,
            Map<String, String> env,
            List<String> extra,
            Path config)
            throws IOException {
        List<String> options = new ArrayList<>(List.of(
                "-XX:+UseSerialGC",
                "-Djava.io.tmpdir=" + dir.resolve("tmp"),
                "-Ddw.server.applicationConnectors[0].port=" + port,
                "-Ddw.server.adminConnectors[0].port=" + adminPort,
                "-Ddw.logging.level=WARN"));
        options.addAll(extra);
        ServiceProcess p = new ServiceProcess(
                name,
                ServiceProcess.javaCommand(jar, options, List.of(command, config.toString())),
                env,
                dir.resolve(name + ".log"),
                adminPort);
        p.start();
        return p;
    }

    /** One {@code server} process with every component, started on a fresh database and ready. */
    record Server(ServiceProcess process, int adminPort, String api, String admin) {}

    /**
     * Drops and migrates the database, starts a {@code server} process with every component on ports of its own and
     * waits until it is ready; stopped by the caller. Its Redis keys are under {@code name} and a fresh number.
     */
    Server server(String name, List<String> extra, Path config) throws Exception {
        Map<String, String> env = environment(name + "-" + System.nanoTime() + ":", "polling");
        freshDatabase(env);
        int apiPort = port();
        int adminPort = port();
        ServiceProcess service = process(name, "server", apiPort, adminPort, env, extra, config);
        if (!service.awaitReady(Duration.ofMinutes(3))) {
            service.stop();
            throw new IllegalStateException("the service did not start; see its log in " + dir);
        }
        return new Server(service, adminPort, "http://127.0.0.1:" + apiPort, "http://127.0.0.1:" + adminPort);
    }

    /** Runs an admin task ({@code pause}, {@code resume}) on one component of the process at {@code adminPort}. */
    static void task(int adminPort, String name, String component) throws IOException, InterruptedException {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(
                                        "http://127.0.0.1:" + adminPort + "/tasks/" + name + "?component=" + component))
                                .header("Authorization", "Bearer " + ADMIN_KEY)
                                .POST(HttpRequest.BodyPublishers.noBody())
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("task " + name + " on :" + adminPort + " answered " + response.statusCode()
                    + ": " + response.body());
        }
    }

    static int port() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (simulator != null) {
            simulator.stop();
        }
        if (redis != null) {
            redis.close();
        }
        if (postgres != null) {
            postgres.close();
        }
    }
}
