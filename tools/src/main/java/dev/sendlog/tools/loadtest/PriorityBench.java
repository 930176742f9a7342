package dev.sendlog.tools.loadtest;

import dev.sendlog.tools.chaos.ServiceProcess;
import dev.sendlog.tools.cpu.CpuWaits;
import dev.sendlog.tools.loadtest.ProbeMessages.Latency;
import java.io.PrintStream;
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

    private final String jar;
    private final Path dir;
    private final int backlog;
    private final int rate;
    private final int seconds;
    private final int normalConcurrency;
    private BenchServers servers;

    public PriorityBench(String jar, Path dir, int backlog, int rate, int seconds, int normalConcurrency) {
        this.normalConcurrency = normalConcurrency;
        this.jar = jar;
        this.dir = dir;
        this.backlog = backlog;
        this.rate = rate;
        this.seconds = seconds;
    }

    public void run(PrintStream out) throws Exception {
        try (BenchServers started = BenchServers.start(jar, dir, Map.of("max_connections", "300"), 20)) {
            servers = started;
            // No re-drives while the backlog waits on the stream with its workers paused.
            BenchServers.Server server = servers.server(
                    "priority",
                    List.of(
                            "-Xmx1g",
                            "-Ddw.pipeline.confirmTimeout=10m",
                            "-Ddw.pipeline.sendWorker.concurrency=" + normalConcurrency,
                            "-Xlog:gc:file=" + dir.toAbsolutePath().resolve("gc.log") + ":uptime"),
                    Path.of("config.yml"));
            ServiceProcess service = server.process();
            int adminPort = server.adminPort();
            try {
                String api = server.api();
                String admin = server.admin();
                out.printf(
                        Locale.ROOT,
                        "## Priority: %d cores, simulator 20 ms, %d normal queued (normal lane %d calls in "
                                + "flight), high at %d/s for %d s (%s)%n",
                        Runtime.getRuntime().availableProcessors(),
                        backlog,
                        normalConcurrency,
                        rate,
                        seconds,
                        Instant.now());
                E2eLoad load = new E2eLoad(api, admin, admin, KEY);
                load.run("warm-up", 5_000, Duration.ofMinutes(5));

                ProbeMessages probes = new ProbeMessages(api, 4917000000000L);
                ProbeMessages.Probe quietHigh = ProbeMessages.Probe.of(KEY, "high");
                CpuWaits.Sample quietFrom = CpuWaits.take(service.pid(), "poller-high");
                probes.paced(rate, Duration.ofSeconds(seconds), List.of(quietHigh));
                List<UUID> quiet = quietHigh.ids();
                String quietCpu =
                        CpuWaits.between(quietFrom, CpuWaits.take(service.pid(), "poller-high"), "the high poller");
                Latency alone = ProbeMessages.latency(servers, quiet, Duration.ofMinutes(2));

                BenchServers.task(adminPort, "pause", "send-worker");
                long acceptFrom = System.nanoTime();
                load.accept(backlog, 20_000_000);
                double acceptSeconds = (System.nanoTime() - acceptFrom) / 1e9;
                Instant backlogFrom = Instant.now();
                BenchServers.task(adminPort, "resume", "send-worker");
                OldestTransaction oldest = OldestTransaction.start(servers);
                CpuWaits.Sample backlogCpuFrom = CpuWaits.take(service.pid(), "poller-high");
                ProbeMessages.Probe behindHigh = ProbeMessages.Probe.of(KEY, "high");
                ProbeMessages.Probe control = ProbeMessages.Probe.of(KEY, "normal");
                probes.paced(rate, Duration.ofSeconds(seconds), List.of(behindHigh, control));
                List<UUID> high = behindHigh.ids();
                String backlogCpu = CpuWaits.between(
                        backlogCpuFrom, CpuWaits.take(service.pid(), "poller-high"), "the high poller");
                String fence = oldest.stop();
                long left = backlogLeft(backlogFrom);
                Latency behind = ProbeMessages.latency(servers, high, Duration.ofMinutes(2));
                Latency normal = ProbeMessages.latency(servers, control.ids(), Duration.ofMinutes(15));

                out.printf(
                        Locale.ROOT,
                        "%d normal messages queued in %.1f s; %d of them still not sent when the %d s of "
                                + "high messages ended%n",
                        backlog,
                        acceptSeconds,
                        left,
                        seconds);
                out.println();
                out.println(
                        "| messages at " + rate + "/s | sent | accept->provider accepted p50 ms | p99 ms | max ms |");
                out.println("|---|---:|---:|---:|---:|");
                row(out, "high, nothing queued", alone);
                row(out, "high, " + backlog + " normal queued", behind);
                row(out, "normal (control), " + backlog + " normal queued", normal);
                out.println();
                out.println("CPU, nothing queued: " + quietCpu);
                out.println("CPU, " + backlog + " normal queued: " + backlogCpu);
                out.println(
                        "the oldest transaction holding an xid while the high messages were sent (the tail's snapshot "
                                + "fence waits for it), sampled every 10 ms: " + fence);
                out.println();
                out.println(
                        "| high messages, p50 / p99 ms | accept->published | published->claimed | claimed->provider accepted |");
                out.println("|---|---:|---:|---:|");
                stages(out, "nothing queued", quiet);
                stages(out, backlog + " normal queued", high);
                out.printf(
                        Locale.ROOT,
                        "%nhigh p99 with the backlog / without: %.2fx (target at most 2x); the control's p99 is "
                                + "%.0fx the high one's%n",
                        behind.p99() / alone.p99(),
                        normal.p99() / behind.p99());
            } finally {
                service.stop();
            }
        }
    }

    private static void row(PrintStream out, String label, Latency l) {
        out.printf(Locale.ROOT, "| %s | %d | %.1f | %.1f | %.1f |%n", label, l.messages(), l.p50(), l.p99(), l.max());
    }

    /** Messages accepted since {@code from} without a PROVIDER_ACCEPTED yet (the backlog still queued). */
    private long backlogLeft(Instant from) throws SQLException {
        try (Connection c = servers.postgres().endpoint().connect("sendlog");
                PreparedStatement st = c.prepareStatement("""
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
        try (Connection c = servers.postgres().endpoint().connect("sendlog");
                PreparedStatement st = c.prepareStatement("""
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
                out.printf(
                        Locale.ROOT,
                        "| %s | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f |%n",
                        label,
                        rs.getDouble(1),
                        rs.getDouble(2),
                        rs.getDouble(3),
                        rs.getDouble(4),
                        rs.getDouble(5),
                        rs.getDouble(6));
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
                try (Connection c = servers.postgres().endpoint().connect("sendlog");
                        PreparedStatement st = c.prepareStatement("""
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
            return String.format(
                    Locale.ROOT,
                    "p50 %.1f ms, p99 %.1f ms, max %.1f ms over %d samples",
                    sorted.get(sorted.size() / 2),
                    sorted.get((int) Math.min(sorted.size() - 1, sorted.size() * 0.99)),
                    sorted.get(sorted.size() - 1),
                    sorted.size());
        }
    }
}
