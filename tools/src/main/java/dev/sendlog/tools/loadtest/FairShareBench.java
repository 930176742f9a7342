package dev.sendlog.tools.loadtest;

import dev.sendlog.tools.chaos.ServiceProcess;
import dev.sendlog.tools.cpu.CpuWaits;
import dev.sendlog.tools.cpu.CpuWindow;
import dev.sendlog.tools.loadtest.ProbeMessages.Latency;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The fair-share benchmark of issue 29, as a measurement of where sendlog stands: tenant B sends {@code rate} messages a
 * second for {@code seconds}, first with tenant A idle, then right after A queued {@code flood} messages (accepted while
 * the send workers were paused, then let go). The gateway takes {@code gatewayRate} submits a second
 * ({@code gateways.sim.maxPerSecond}), so A's flood is held by the contracted rate, not by the machine. Prints B's
 * accept-to-provider p50/p99 in both phases (the target: at most 2 times with A flooding) and A's submits a second while
 * B's messages were sent (the target's other half: A uses what B leaves).
 *
 * <p>With {@code weightB} above 0, tenant B has that weight ({@code tenants.bench-b.weight}): a lane of its own and its
 * share of the gateway's rate (docs/design.md, "Fair shares between tenants"). With 0 it shares the normal lane with
 * A in arrival order, and waits behind A's whole flood: the gap the lanes close, measured side by side.
 */
public final class FairShareBench {
    private static final String KEY_A = "demo-client-key";
    private static final String KEY_B = "bench-tenant-b-key";
    /** B's poller thread as Linux names it (its first 15 characters), with a weight; else the normal lane's poller. */
    private final String pollerB;

    private final String jar;
    private final Path dir;
    private final int flood;
    private final int rate;
    private final int seconds;
    private final int gatewayRate;
    private final int weightB;
    private BenchServers servers;

    public FairShareBench(String jar, Path dir, int flood, int rate, int seconds, int gatewayRate, int weightB) {
        this.jar = jar;
        this.dir = dir;
        this.flood = flood;
        this.rate = rate;
        this.seconds = seconds;
        this.gatewayRate = gatewayRate;
        this.weightB = weightB;
        this.pollerB = weightB > 0 ? "poller-tenant-b" : "poller-normal";
    }

    public void run(PrintStream out) throws Exception {
        Map<String, String> postgresSettings = new java.util.HashMap<>(Map.of("max_connections", "300"));
        if (STATEMENTS) {
            postgresSettings.put("shared_preload_libraries", "pg_stat_statements");
            postgresSettings.put("pg_stat_statements.track_planning", "on");
        }
        // PG_SETTINGS=name=value,name=value: server settings for an experiment (plan_cache_mode, say).
        String extra = System.getenv("PG_SETTINGS");
        if (extra != null && !extra.isBlank()) {
            for (String setting : extra.split(",")) {
                postgresSettings.put(
                        setting.substring(0, setting.indexOf('=')).trim(),
                        setting.substring(setting.indexOf('=') + 1).trim());
            }
        }
        try (BenchServers started = BenchServers.start(jar, dir, postgresSettings, 20)) {
            servers = started;
            // No re-drives while the flood waits on the stream with its workers paused.
            BenchServers.Server server = servers.server("fair", serverOptions(), withTenantB(dir, weightB));
            ServiceProcess service = server.process();
            int adminPort = server.adminPort();
            try {
                String api = server.api();
                String admin = server.admin();
                out.printf(
                        Locale.ROOT,
                        "## Fair shares: %d cores, simulator 20 ms, gateway %d submits/s, tenant A floods %d, "
                                + "tenant B at %d/s for %d s, B's weight %s (%s)%n",
                        Runtime.getRuntime().availableProcessors(),
                        gatewayRate,
                        flood,
                        rate,
                        seconds,
                        weightB > 0 ? Integer.toString(weightB) : "none (one lane for both)",
                        Instant.now());
                E2eLoad loadA = new E2eLoad(api, admin, admin, KEY_A);
                // A minute of the gateway's rate by default (WARMUP=n to change it): with 2,000 messages the JIT
                // compilers still used a quarter of a core in the flooded window, which a server that has run for a
                // while no longer pays.
                String warmupSetting = System.getenv("WARMUP");
                int warmup = warmupSetting == null || warmupSetting.isBlank()
                        ? gatewayRate * 60
                        : Integer.parseInt(warmupSetting.trim());
                loadA.run("warm-up", warmup, Duration.ofSeconds(Math.max(300, 3L * warmup / gatewayRate)));

                ProbeMessages probes = new ProbeMessages(api, 4918000000000L);
                ProbeMessages.Probe aloneB = ProbeMessages.Probe.of(KEY_B, "normal");
                CpuWaits.Sample idleFrom = CpuWaits.take(service.pid(), pollerB);
                CpuWindow idleUse = CpuWindow.take(service.pid());
                probes.paced(rate, Duration.ofSeconds(seconds), List.of(aloneB));
                String idleCpu = CpuWaits.between(idleFrom, CpuWaits.take(service.pid(), pollerB), "B's poller") + "; "
                        + idleUse.until(CpuWindow.take(service.pid()), 8);
                Latency alone = ProbeMessages.latency(servers, aloneB.ids(), Duration.ofMinutes(2));

                BenchServers.task(adminPort, "pause", "send-worker");
                long acceptFrom = System.nanoTime();
                loadA.accept(flood, 20_000_000);
                double acceptSeconds = (System.nanoTime() - acceptFrom) / 1e9;
                BenchServers.task(adminPort, "resume", "send-worker");
                Instant windowFrom = Instant.now();
                ProbeMessages.Probe floodedB = ProbeMessages.Probe.of(KEY_B, "normal");
                CpuWaits.Sample floodFrom = CpuWaits.take(service.pid(), pollerB);
                resetStatements();
                CpuWindow floodUse = CpuWindow.take(service.pid());
                probes.paced(rate, Duration.ofSeconds(seconds), List.of(floodedB));
                String floodCpu = CpuWaits.between(floodFrom, CpuWaits.take(service.pid(), pollerB), "B's poller")
                        + "; " + floodUse.until(CpuWindow.take(service.pid()), 8);
                Instant windowTo = Instant.now();
                String statements = topStatements(8);
                // B's messages within what a user would still call a delay: twice the flood's drain time at the
                // gateway's rate is the most any of them can take behind it.
                Duration patience = Duration.ofSeconds(Math.max(60, 2L * flood / gatewayRate));
                Latency behind = ProbeMessages.latency(servers, floodedB.ids(), patience);
                double seconds = Duration.between(windowFrom, windowTo).toMillis() / 1000.0;
                long sentA = providerAccepted("demo", windowFrom, windowTo);
                long sentB = providerAccepted("bench-b", windowFrom, windowTo);

                out.printf(Locale.ROOT, "A's %d messages queued in %.1f s%n%n", flood, acceptSeconds);
                out.println(
                        "| tenant B at " + rate + "/s | sent | accept->provider accepted p50 ms | p99 ms | max ms |");
                out.println("|---|---:|---:|---:|---:|");
                row(out, "A idle", alone, aloneB.ids().size());
                row(out, "A's " + flood + " queued", behind, floodedB.ids().size());
                out.println();
                out.println("B's stages, ms p50/p99, A idle: " + ProbeMessages.stages(servers, aloneB.ids()));
                out.println(
                        "B's stages, ms p50/p99, A's flood queued: " + ProbeMessages.stages(servers, floodedB.ids()));
                out.println("CPU while B sent, A idle: " + idleCpu);
                out.println("CPU while B sent, A's flood queued: " + floodCpu);
                out.print(statements);
                out.printf(
                        Locale.ROOT,
                        "%nwhile B sent (%.1f s): the gateway accepted A %.1f/s and B %.1f/s of %d/s%n",
                        seconds,
                        sentA / seconds,
                        sentB / seconds,
                        gatewayRate);
                out.printf(
                        Locale.ROOT,
                        "B's p99 with A flooding / with A idle: %.2fx (target at most 2x)%s%n",
                        behind.p99() / alone.p99(),
                        behind.messages() < floodedB.ids().size()
                                ? String.format(
                                        Locale.ROOT,
                                        "; only %d of B's %d were sent within %d s, so the p99 is of " + "those",
                                        behind.messages(),
                                        floodedB.ids().size(),
                                        patience.toSeconds())
                                : "");
            } finally {
                service.stop();
            }
        }
    }

    /** With STATEMENTS=true, the database records its statements (pg_stat_statements) for the flooded window. */
    private static final boolean STATEMENTS = Boolean.parseBoolean(System.getenv("STATEMENTS"));

    private void resetStatements() throws SQLException {
        if (STATEMENTS) {
            try (Connection c = servers.postgres().endpoint().connect("sendlog");
                    java.sql.Statement st = c.createStatement()) {
                st.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
                st.execute("SELECT pg_stat_statements_reset()");
            }
        }
    }

    /** The statements that took the database's time while B sent with A flooding, or nothing without STATEMENTS. */
    private String topStatements(int top) throws SQLException {
        if (!STATEMENTS) {
            return "";
        }
        StringBuilder text = new StringBuilder("\nThe database's busiest statements while B sent, A's flood queued:\n");
        try (Connection c = servers.postgres().endpoint().connect("sendlog");
                PreparedStatement st = c.prepareStatement("""
                        SELECT round(total_exec_time)::bigint, round(total_plan_time)::bigint, calls, rows, shared_blks_hit, left(regexp_replace(query, '\\s+', ' ', 'g'), 160)
                        FROM pg_stat_statements ORDER BY total_exec_time + total_plan_time DESC LIMIT ?""")) {
            st.setInt(1, top);
            try (ResultSet rs = st.executeQuery()) {
                while (rs.next()) {
                    text.append(String.format(
                            Locale.ROOT,
                            "  %6d ms run %6d ms planned %7d calls %8d rows %9d buffers  %s%n",
                            rs.getLong(1),
                            rs.getLong(2),
                            rs.getLong(3),
                            rs.getLong(4),
                            rs.getLong(5),
                            rs.getString(6)));
                }
            }
        }
        return text.toString();
    }

    /** The server's JVM options; {@code SERVER_OPTS} (space-separated) adds to them, for an experiment. */
    private List<String> serverOptions() {
        List<String> options = new java.util.ArrayList<>(
                List.of("-Xmx1g", "-Ddw.pipeline.confirmTimeout=30m", "-Ddw.gateways.sim.maxPerSecond=" + gatewayRate));
        String extra = System.getenv("SERVER_OPTS");
        if (extra != null && !extra.isBlank()) {
            options.addAll(List.of(extra.trim().split("\\s+")));
        }
        return options;
    }

    /** The shipped config.yml with a second tenant's client key (tenant {@code bench-b}) and its weight, if any. */
    private static Path withTenantB(Path dir, int weightB) throws java.io.IOException {
        String config = Files.readString(Path.of("config.yml"));
        String anchor = "    - {key: demo-admin-key, tenant: demo, role: admin, demo: true}\n";
        if (!config.contains(anchor)) {
            throw new IllegalStateException(
                    "config.yml no longer lists the demo admin key; the benchmark adds its key after it");
        }
        String tenants = "\ntenants: {}\n";
        if (weightB > 0 && !config.contains(tenants)) {
            throw new IllegalStateException(
                    "config.yml no longer has an empty tenants map; the benchmark sets B's weight there");
        }
        String withKey = config.replace(anchor, anchor + "    - {key: " + KEY_B + ", tenant: bench-b, role: client}\n");
        Path file = dir.toAbsolutePath().resolve("fair-config.yml");
        Files.writeString(
                file,
                weightB > 0
                        ? withKey.replace(tenants, "\ntenants:\n  bench-b:\n    weight: " + weightB + "\n")
                        : withKey);
        return file;
    }

    private static void row(PrintStream out, String label, Latency l, int submitted) {
        out.printf(
                Locale.ROOT,
                "| %s | %d of %d | %.1f | %.1f | %.1f |%n",
                label,
                l.messages(),
                submitted,
                l.p50(),
                l.p99(),
                l.max());
    }

    /** A tenant's PROVIDER_ACCEPTED events between two times, from the log. */
    private long providerAccepted(String tenant, Instant from, Instant to) throws SQLException {
        try (Connection c = servers.postgres().endpoint().connect("sendlog");
                PreparedStatement st = c.prepareStatement("""
                SELECT count(*) FROM message_events e JOIN messages m ON m.id = e.message_id
                WHERE e.type = 4 AND m.tenant = ? AND e.at >= ?::timestamptz AND e.at < ?::timestamptz""")) {
            st.setString(1, tenant);
            st.setString(2, from.toString());
            st.setString(3, to.toString());
            try (ResultSet rs = st.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
