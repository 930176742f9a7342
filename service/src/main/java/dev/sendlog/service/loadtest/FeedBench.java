package dev.sendlog.service.loadtest;

import dev.sendlog.infra.LocalPostgres;
import dev.sendlog.infra.RedisOptions;
import dev.sendlog.infra.RedisProcess;
import dev.sendlog.service.chaos.ServiceProcess;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The feed benchmark (issue 8): end-to-end throughput with one, two and three poller processes, polling against
 * change data capture, in one run on one PostgreSQL of its own (wal_level=logical, so both feeds run on the same
 * server), with the time from accept to PUBLISHED at a steady rate well below capacity (the feed's own latency, not
 * a backlog's). Each cell gets a fresh database: an API + send-worker process, N poller processes, the simulator
 * answering in 20 ms, a warm-up, a burst of {@code messages}, then {@code pacedSeconds} at {@code pacedRate}.
 */
public final class FeedBench {
    private static final String KEY = "demo-client-key";

    private final String jar;
    private final Path dir;
    private final int messages;
    private final int pacedRate;
    private final int pacedSeconds;
    private final List<Integer> pollerCounts;
    private final List<String> feeds;
    private LocalPostgres postgres;
    private RedisProcess redis;
    private ServiceProcess simulator;
    private int simulatorPort;

    public FeedBench(String jar, Path dir, int messages, int pacedRate, int pacedSeconds, List<Integer> pollerCounts,
                     List<String> feeds) {
        this.jar = jar;
        this.dir = dir;
        this.messages = messages;
        this.pacedRate = pacedRate;
        this.pacedSeconds = pacedSeconds;
        this.pollerCounts = pollerCounts;
        this.feeds = feeds;
    }

    record Cell(String feed, int pollers, double perSecond, double e2eP50Ms, double publishP50Ms, double publishP99Ms,
                long paced) {
    }

    public void run(PrintStream out) throws Exception {
        Files.createDirectories(dir.resolve("tmp"));
        List<Cell> cells = new ArrayList<>();
        try {
            postgres = LocalPostgres.start(dir.resolve("postgres"), 0, Map.of("max_connections", "300"));
            redis = RedisProcess.start(RedisOptions.inDirectory(dir.resolve("redis")));
            simulatorPort = port();
            Path simConfig = dir.resolve("simulator.json");
            Files.writeString(simConfig, "{\"latencyMs\": 20, \"receiptMode\": \"NONE\"}");
            simulator = new ServiceProcess("simulator", ServiceProcess.javaCommand(jar, List.of("-Xmx256m"),
                    List.of("simulator", "--port", Integer.toString(simulatorPort), "--config", simConfig.toString())),
                    Map.of(), dir.resolve("simulator.log"), simulatorPort);
            simulator.start();
            out.printf(Locale.ROOT, "## Feeds: %d cores, simulator 20 ms, %d messages per burst, then %d s at %d msg/s (%s)%n",
                    Runtime.getRuntime().availableProcessors(), messages, pacedSeconds, pacedRate, Instant.now());
            // Alternate the feeds within each poller count, so drift on a shared machine hits both alike.
            for (int pollers : pollerCounts) {
                for (String feed : feeds) {
                    Cell cell = cell(feed, pollers, out);
                    cells.add(cell);
                    out.printf(Locale.ROOT, "cell %s x%d: %.0f msg/s, accept->PUBLISHED p50 %.1f ms p99 %.1f ms%n",
                            feed, pollers, cell.perSecond(), cell.publishP50Ms(), cell.publishP99Ms());
                }
            }
        } finally {
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
        out.println();
        out.println("| feed | pollers | end to end msg/s (burst) | accepted->SENT p50 ms (burst) | accept->PUBLISHED p50 ms (paced) | p99 ms (paced) |");
        out.println("|---|---:|---:|---:|---:|---:|");
        for (Cell c : cells) {
            out.printf(Locale.ROOT, "| %s | %d | %.0f | %.0f | %.1f | %.1f |%n", c.feed(), c.pollers(), c.perSecond(),
                    c.e2eP50Ms(), c.publishP50Ms(), c.publishP99Ms());
        }
        for (int pollers : pollerCounts) {
            Cell polling = find(cells, "polling", pollers);
            Cell cdc = find(cells, "cdc", pollers);
            if (polling != null && cdc != null) {
                out.printf(Locale.ROOT, "%d poller(s): cdc/polling throughput %.2fx; accept->PUBLISHED p50 cdc/polling %.2fx%n",
                        pollers, cdc.perSecond() / polling.perSecond(), cdc.publishP50Ms() / polling.publishP50Ms());
            }
        }
    }

    private static Cell find(List<Cell> cells, String feed, int pollers) {
        return cells.stream().filter(c -> c.feed().equals(feed) && c.pollers() == pollers).findFirst().orElse(null);
    }

    private Cell cell(String feed, int pollers, PrintStream out) throws Exception {
        recreateDatabase();
        String prefix = "feeds-" + feed + "-" + pollers + "-" + System.nanoTime() + ":";
        Map<String, String> env = Map.of("SENDLOG_DATABASE_URL", "jdbc:postgresql://127.0.0.1:" + postgres.endpoint().port() + "/sendlog",
                "SENDLOG_REDIS_SEND_URI", redis.endpoint().uri(), "SENDLOG_REDIS_CALLBACK_URI", redis.endpoint().uri(),
                "SENDLOG_REDIS_PREFIX", prefix, "SENDLOG_SIMULATOR", "false",
                "SENDLOG_SIM_URL", "http://127.0.0.1:" + simulatorPort, "SENDLOG_FEED", feed);
        migrate(env);
        List<ServiceProcess> fleet = new ArrayList<>();
        try {
            int apiPort = port();
            int adminPort = port();
            fleet.add(process("api-" + feed + "-" + pollers, "server", apiPort, adminPort, env, List.of("-Xmx1g",
                    "-Ddw.components=API,SEND_WORKER,CALLBACK_WORKER,MAINTENANCE", "-Ddw.pipeline.sendWorker.concurrency=256")));
            for (int i = 1; i <= pollers; i++) {
                fleet.add(process("poller-" + feed + "-" + pollers + "-" + i, "poller", port(), port(), env, List.of("-Xmx512m")));
            }
            for (ServiceProcess p : fleet) {
                if (!p.awaitReady(Duration.ofMinutes(3))) {
                    throw new IllegalStateException(p.name() + " did not start; see its log in " + dir);
                }
            }
            E2eLoad load = new E2eLoad("http://127.0.0.1:" + apiPort, "http://127.0.0.1:" + adminPort, KEY);
            load.run(feed + " x" + pollers + " warm-up", Math.max(1000, messages / 10), Duration.ofMinutes(5));
            E2eLoad.Result burst = load.run(feed + " x" + pollers, messages, Duration.ofMinutes(10));
            E2eLoad.print(burst, out);
            Instant pacedFrom = Instant.now();
            long paced = load.paced(pacedRate, Duration.ofSeconds(pacedSeconds), Duration.ofMinutes(2));
            double[] publish = acceptToPublished(pacedFrom);
            return new Cell(feed, pollers, burst.perSecond(), burst.p50Ms(), publish[0], publish[1], paced);
        } finally {
            for (ServiceProcess p : fleet) {
                p.stop();
            }
        }
    }

    private ServiceProcess process(String name, String command, int port, int adminPort, Map<String, String> env,
                                   List<String> extra) throws IOException {
        List<String> options = new ArrayList<>(List.of("-XX:+UseSerialGC", "-Djava.io.tmpdir=" + dir.resolve("tmp"),
                "-Ddw.server.applicationConnectors[0].port=" + port, "-Ddw.server.adminConnectors[0].port=" + adminPort,
                "-Ddw.logging.level=WARN", "-Ddw.database.pools.api=8", "-Ddw.database.pools.pipeline=8",
                "-Ddw.database.pools.callbacks=4", "-Ddw.database.pools.maintenance=2"));
        options.addAll(extra);
        ServiceProcess p = new ServiceProcess(name, ServiceProcess.javaCommand(jar, options, List.of(command, "config.yml")),
                env, dir.resolve(name + ".log"), adminPort);
        p.start();
        return p;
    }

    /** The median and p99 of accept -> PUBLISHED over the messages accepted since {@code from}, from the log. */
    private double[] acceptToPublished(Instant from) throws SQLException {
        try (Connection c = postgres.endpoint().connect("sendlog"); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("""
                     SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms), percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)
                     FROM (SELECT extract(epoch FROM p.at - a.at) * 1000 AS ms
                           FROM message_events a JOIN message_events p ON p.message_id = a.message_id AND p.seq = 2
                           WHERE a.seq = 1 AND a.type = 'ACCEPTED' AND p.type = 'PUBLISHED' AND a.at >= '%s') t"""
                     .formatted(from))) {
            rs.next();
            return new double[] {rs.getDouble(1), rs.getDouble(2)};
        }
    }

    private void recreateDatabase() throws SQLException {
        try (Connection c = postgres.endpoint().connect(LocalPostgres.ADMIN_DATABASE); Statement st = c.createStatement()) {
            st.execute("SELECT pg_terminate_backend(active_pid, 10000) FROM pg_replication_slots WHERE database = 'sendlog' AND active");
            st.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE database = 'sendlog'");
            st.execute("DROP DATABASE IF EXISTS sendlog WITH (FORCE)");
            st.execute("CREATE DATABASE sendlog");
        }
    }

    private void migrate(Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(ServiceProcess.javaCommand(jar, List.of(), List.of("db", "migrate", "config.yml")))
                .redirectErrorStream(true).redirectOutput(dir.resolve("migrate.log").toFile());
        pb.environment().putAll(env);
        if (pb.start().waitFor() != 0) {
            throw new IllegalStateException("migration failed; see " + dir.resolve("migrate.log"));
        }
    }

    private static int port() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
