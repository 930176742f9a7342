package dev.sendlog.service.loadtest;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sendlog.service.chaos.ServiceProcess;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * The priority benchmark (issue 26): the time from accept to the provider's acceptance of {@code high} messages sent at a
 * steady {@code rate}, first with nothing else queued, then right after {@code backlog} normal messages were queued
 * (accepted while the send workers were paused, then let go). Normal messages at the same rate during the backlog are
 * the control: they take the normal lane, behind the backlog. One process with every component, the simulator
 * answering in 20 ms, a PostgreSQL, Redis and simulator of its own. Target: the high p99 with the backlog at most twice
 * the p99 without.
 */
public final class PriorityBench {
    private static final String KEY = "demo-client-key";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String jar;
    private final Path dir;
    private final int backlog;
    private final int rate;
    private final int seconds;
    private final int normalConcurrency;
    private final HttpClient http = HttpClient.newHttpClient();
    private BenchServers servers;
    private long recipients = 4917000000000L;

    public PriorityBench(String jar, Path dir, int backlog, int rate, int seconds, int normalConcurrency) {
        this.normalConcurrency = normalConcurrency;
        this.jar = jar;
        this.dir = dir;
        this.backlog = backlog;
        this.rate = rate;
        this.seconds = seconds;
    }

    /** Latencies in ms over a set of messages, from the log: acceptance to the PROVIDER_ACCEPTED event. */
    record Latency(long messages, double p50, double p99, double max) {
    }

    public void run(PrintStream out) throws Exception {
        try (BenchServers started = BenchServers.start(jar, dir, Map.of("max_connections", "300"), 20)) {
            servers = started;
            Map<String, String> env = servers.environment("priority-" + System.nanoTime() + ":", "polling");
            servers.freshDatabase(env);
            int apiPort = BenchServers.port();
            int adminPort = BenchServers.port();
            // No re-drives while the backlog waits on the stream with its workers paused.
            ServiceProcess service = servers.process("priority", "server", apiPort, adminPort, env,
                    List.of("-Xmx1g", "-Ddw.pipeline.confirmTimeout=10m",
                            "-Ddw.pipeline.sendWorker.concurrency=" + normalConcurrency,
                            "-Xlog:gc:file=" + dir.toAbsolutePath().resolve("gc.log") + ":uptime"));
            try {
                if (!service.awaitReady(Duration.ofMinutes(3))) {
                    throw new IllegalStateException("the service did not start; see its log in " + dir);
                }
                String api = "http://127.0.0.1:" + apiPort;
                String admin = "http://127.0.0.1:" + adminPort;
                out.printf(Locale.ROOT, "## Priority: %d cores, simulator 20 ms, %d normal queued (normal lane %d calls in "
                                + "flight), high at %d/s for %d s (%s)%n",
                        Runtime.getRuntime().availableProcessors(), backlog, normalConcurrency, rate, seconds, Instant.now());
                E2eLoad load = new E2eLoad(api, admin, admin, KEY);
                load.run("warm-up", 5_000, Duration.ofMinutes(5));

                CpuWaits.Sample quietFrom = CpuWaits.take(service.pid(), "poller-high");
                List<UUID> quiet = paced(api, "high", null);
                String quietCpu = CpuWaits.between(quietFrom, CpuWaits.take(service.pid(), "poller-high"), "the high poller");
                Latency alone = latency(quiet, Duration.ofMinutes(2));

                BenchServers.task(adminPort, "pause", "send-worker");
                long acceptFrom = System.nanoTime();
                load.accept(backlog, 20_000_000);
                double acceptSeconds = (System.nanoTime() - acceptFrom) / 1e9;
                Instant backlogFrom = Instant.now();
                BenchServers.task(adminPort, "resume", "send-worker");
                List<UUID> control = new ArrayList<>();
                OldestTransaction oldest = OldestTransaction.start(servers);
                CpuWaits.Sample backlogCpuFrom = CpuWaits.take(service.pid(), "poller-high");
                List<UUID> high = paced(api, "high", control);
                String backlogCpu = CpuWaits.between(backlogCpuFrom, CpuWaits.take(service.pid(), "poller-high"),
                        "the high poller");
                String fence = oldest.stop();
                long left = backlogLeft(backlogFrom);
                Latency behind = latency(high, Duration.ofMinutes(2));
                Latency normal = latency(control, Duration.ofMinutes(15));

                out.printf(Locale.ROOT, "%d normal messages queued in %.1f s; %d of them still not sent when the %d s of "
                        + "high messages ended%n", backlog, acceptSeconds, left, seconds);
                out.println();
                out.println("| messages at " + rate + "/s | sent | accept->provider accepted p50 ms | p99 ms | max ms |");
                out.println("|---|---:|---:|---:|---:|");
                row(out, "high, nothing queued", alone);
                row(out, "high, " + backlog + " normal queued", behind);
                row(out, "normal (control), " + backlog + " normal queued", normal);
                out.println();
                out.println("CPU, nothing queued: " + quietCpu);
                out.println("CPU, " + backlog + " normal queued: " + backlogCpu);
                out.println("the oldest transaction holding an xid while the high messages were sent (the tail's snapshot "
                        + "fence waits for it), sampled every 10 ms: " + fence);
                out.println();
                out.println("| high messages, p50 / p99 ms | accept->published | published->claimed | claimed->provider accepted |");
                out.println("|---|---:|---:|---:|");
                stages(out, "nothing queued", quiet);
                stages(out, backlog + " normal queued", high);
                out.printf(Locale.ROOT, "%nhigh p99 with the backlog / without: %.2fx (target at most 2x); the control's p99 is "
                        + "%.0fx the high one's%n", behind.p99() / alone.p99(), normal.p99() / behind.p99());
            } finally {
                service.stop();
            }
        }
    }

    private static void row(PrintStream out, String label, Latency l) {
        out.printf(Locale.ROOT, "| %s | %d | %.1f | %.1f | %.1f |%n", label, l.messages(), l.p50(), l.p99(), l.max());
    }

    /**
     * Sends single messages of {@code priority} at {@code rate} per second for {@code seconds}; with {@code control}
     * given, a normal one beside each, its id added there. Returns the ids of the {@code priority} ones.
     */
    private List<UUID> paced(String api, String priority, List<UUID> control) throws IOException, InterruptedException {
        List<UUID> ids = new ArrayList<>();
        long interval = 1_000_000_000L / rate;
        long start = System.nanoTime();
        long next = start;
        while (System.nanoTime() - start < Duration.ofSeconds(seconds).toNanos()) {
            ids.add(submit(api, priority));
            if (control != null) {
                control.add(submit(api, "normal"));
            }
            next += interval;
            long wait = next - System.nanoTime();
            if (wait > 0) {
                Thread.sleep(Duration.ofNanos(wait)); // pacing: the next message is due then
            }
        }
        return ids;
    }

    private UUID submit(String api, String priority) throws IOException, InterruptedException {
        String body = "{\"to\":\"+" + (recipients++) + "\",\"body\":\"priority probe\",\"priority\":\"" + priority + "\"}";
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(api + "/v1/messages"))
                .header("Authorization", "Bearer " + KEY).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 202) {
            throw new IllegalStateException("submit answered " + r.statusCode() + ": " + r.body());
        }
        return UUID.fromString(JSON.readTree(r.body()).get("id").asText());
    }

    /** Messages accepted since {@code from} without a PROVIDER_ACCEPTED yet (the backlog still queued). */
    private long backlogLeft(Instant from) throws SQLException {
        try (Connection c = servers.postgres().endpoint().connect("sendlog"); PreparedStatement st = c.prepareStatement("""
                SELECT count(*) FROM messages m WHERE m.accepted_at >= ?::timestamptz - interval '15 minutes'
                  AND NOT EXISTS (SELECT 1 FROM message_events e WHERE e.message_id = m.id AND e.type = 4)""")) {
            st.setString(1, from.toString());
            try (ResultSet rs = st.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /**
     * Where a message's time went, per stage: acceptance to the publication that put its claimed job on the stream
     * (the poller), the publication to the CLAIMED event (the stream and the worker's read), CLAIMED to
     * PROVIDER_ACCEPTED (the provider call and the append).
     */
    private void stages(PrintStream out, String label, List<UUID> ids) throws SQLException {
        try (Connection c = servers.postgres().endpoint().connect("sendlog"); PreparedStatement st = c.prepareStatement("""
                SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY pub), percentile_cont(0.99) WITHIN GROUP (ORDER BY pub),
                       percentile_cont(0.5) WITHIN GROUP (ORDER BY claim), percentile_cont(0.99) WITHIN GROUP (ORDER BY claim),
                       percentile_cont(0.5) WITHIN GROUP (ORDER BY send), percentile_cont(0.99) WITHIN GROUP (ORDER BY send)
                FROM (SELECT extract(epoch FROM p.published_at - m.accepted_at) * 1000 AS pub,
                             extract(epoch FROM cl.at - p.published_at) * 1000 AS claim,
                             extract(epoch FROM pa.at - cl.at) * 1000 AS send
                      FROM messages m
                      JOIN message_events cl ON cl.message_id = m.id AND cl.type = 3
                      JOIN publications p ON p.id = cl.publication
                      JOIN message_events pa ON pa.message_id = m.id AND pa.type = 4
                      WHERE m.id = ANY(?)) t""")) {
            st.setArray(1, c.createArrayOf("uuid", ids.toArray()));
            try (ResultSet rs = st.executeQuery()) {
                rs.next();
                out.printf(Locale.ROOT, "| %s | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f |%n", label, rs.getDouble(1),
                        rs.getDouble(2), rs.getDouble(3), rs.getDouble(4), rs.getDouble(5), rs.getDouble(6));
            }
        }
    }

    /**
     * Samples the age of the oldest open transaction that holds an xid: the log's tail shows a committed row only once
     * every transaction that began before its commit has ended (snapshot-safe reads), so this is what a message waits
     * before any poller can see it.
     */
    private static final class OldestTransaction {
        private final Thread thread;
        private final List<Double> ages = java.util.Collections.synchronizedList(new ArrayList<>());
        private volatile boolean running = true;

        private OldestTransaction(BenchServers servers) {
            thread = Thread.ofPlatform().daemon(true).start(() -> {
                try (Connection c = servers.postgres().endpoint().connect("sendlog"); PreparedStatement st = c.prepareStatement("""
                        SELECT coalesce(extract(epoch FROM max(clock_timestamp() - xact_start)) * 1000, 0)
                        FROM pg_stat_activity WHERE backend_xid IS NOT NULL AND pid <> pg_backend_pid()""")) {
                    while (running) {
                        try (ResultSet rs = st.executeQuery()) {
                            rs.next();
                            ages.add(rs.getDouble(1));
                        }
                        Thread.sleep(10); // the sampling interval
                    }
                } catch (SQLException | InterruptedException e) {
                    ages.add(-1.0);
                }
            });
        }

        static OldestTransaction start(BenchServers servers) {
            return new OldestTransaction(servers);
        }

        String stop() throws InterruptedException {
            running = false;
            thread.join();
            List<Double> sorted = new ArrayList<>(ages);
            sorted.sort(null);
            if (sorted.isEmpty()) {
                return "no samples";
            }
            return String.format(Locale.ROOT, "p50 %.1f ms, p99 %.1f ms, max %.1f ms over %d samples",
                    sorted.get(sorted.size() / 2), sorted.get((int) Math.min(sorted.size() - 1, sorted.size() * 0.99)),
                    sorted.get(sorted.size() - 1), sorted.size());
        }
    }

    /** Waits (up to {@code atMost}) until every message has its PROVIDER_ACCEPTED, then reads the latencies. */
    private Latency latency(List<UUID> ids, Duration atMost) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + atMost.toNanos();
        try (Connection c = servers.postgres().endpoint().connect("sendlog"); PreparedStatement st = c.prepareStatement("""
                SELECT count(*), percentile_cont(0.5) WITHIN GROUP (ORDER BY ms), percentile_cont(0.99) WITHIN GROUP (ORDER BY ms),
                       max(ms)
                FROM (SELECT extract(epoch FROM e.at - m.accepted_at) * 1000 AS ms
                      FROM messages m JOIN message_events e ON e.message_id = m.id AND e.type = 4
                      WHERE m.id = ANY(?)) t""")) {
            st.setArray(1, c.createArrayOf("uuid", ids.toArray()));
            while (true) {
                try (ResultSet rs = st.executeQuery()) {
                    rs.next();
                    if (rs.getLong(1) >= ids.size() || System.nanoTime() > deadline) {
                        return new Latency(rs.getLong(1), rs.getDouble(2), rs.getDouble(3), rs.getDouble(4));
                    }
                }
                Thread.sleep(500); // polling the log for the last of them
            }
        }
    }
}
