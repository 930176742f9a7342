package dev.sendlog.tools.loadtest;

import dev.sendlog.tools.chaos.ServiceProcess;
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

/**
 * The feed benchmark (issue 8): end-to-end throughput with one, two and three poller processes, polling against
 * change data capture, in one run on one PostgreSQL of its own (wal_level=logical, so both feeds run on the same
 * server), with the time from accept to PUBLISHED at a steady rate well below capacity (the feed's own latency, not
 * a backlog's). Each cell gets a fresh database: an API + send-worker process, N poller processes, the simulator
 * answering in 20 ms, a warm-up, a burst of {@code messages}, then {@code pacedSeconds} at {@code pacedRate}, then a
 * backlog of {@code messages} accepted while the pollers are paused (the feed's own rate once they resume).
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
    private BenchServers servers;

    public FeedBench(
            String jar,
            Path dir,
            int messages,
            int pacedRate,
            int pacedSeconds,
            List<Integer> pollerCounts,
            List<String> feeds) {
        this.jar = jar;
        this.dir = dir;
        this.messages = messages;
        this.pacedRate = pacedRate;
        this.pacedSeconds = pacedSeconds;
        this.pollerCounts = pollerCounts;
        this.feeds = feeds;
    }

    record Cell(
            String feed,
            int pollers,
            double perSecond,
            double e2eP50Ms,
            double publishP50Ms,
            double publishP99Ms,
            double commitP50Ms,
            double commitP99Ms,
            long paced,
            double feedPerSecond) {}

    public void run(PrintStream out) throws Exception {
        List<Cell> cells = new ArrayList<>();
        // Commit timestamps let the bench measure from the accepting transaction's commit, not only from accept.
        try (BenchServers started =
                BenchServers.start(jar, dir, Map.of("max_connections", "300", "track_commit_timestamp", "on"), 20)) {
            servers = started;
            out.printf(
                    Locale.ROOT,
                    "## Feeds: %d cores, simulator 20 ms, %d messages per burst, then %d s at %d msg/s (%s)%n",
                    Runtime.getRuntime().availableProcessors(),
                    messages,
                    pacedSeconds,
                    pacedRate,
                    Instant.now());
            // Alternate the feeds within each poller count, so drift on a shared machine hits both alike.
            for (int pollers : pollerCounts) {
                for (String feed : feeds) {
                    Cell cell = cell(feed, pollers, out);
                    cells.add(cell);
                    out.printf(
                            Locale.ROOT,
                            "cell %s x%d: feed only %.0f msg/s, end to end %.0f msg/s, accept->PUBLISHED p50 %.1f ms p99 %.1f ms, "
                                    + "commit->PUBLISHED p50 %.1f ms p99 %.1f ms%n",
                            feed,
                            pollers,
                            cell.feedPerSecond(),
                            cell.perSecond(),
                            cell.publishP50Ms(),
                            cell.publishP99Ms(),
                            cell.commitP50Ms(),
                            cell.commitP99Ms());
                }
            }
        }
        out.println();
        out.println(
                "| feed | pollers | feed only msg/s (backlog) | end to end msg/s (burst) | accepted->SENT p50 ms (burst) "
                        + "| commit->PUBLISHED p50 / p99 ms (paced) | accept->PUBLISHED p50 / p99 ms (paced) |");
        out.println("|---|---:|---:|---:|---:|---:|---:|");
        for (Cell c : cells) {
            out.printf(
                    Locale.ROOT,
                    "| %s | %d | %.0f | %.0f | %.0f | %.1f / %.1f | %.1f / %.1f |%n",
                    c.feed(),
                    c.pollers(),
                    c.feedPerSecond(),
                    c.perSecond(),
                    c.e2eP50Ms(),
                    c.commitP50Ms(),
                    c.commitP99Ms(),
                    c.publishP50Ms(),
                    c.publishP99Ms());
        }
        for (int pollers : pollerCounts) {
            Cell polling = find(cells, "polling", pollers);
            Cell cdc = find(cells, "cdc", pollers);
            if (polling != null && cdc != null) {
                out.printf(
                        Locale.ROOT,
                        "%d poller(s): cdc/polling feed only %.2fx, end to end %.2fx; commit->PUBLISHED p50 "
                                + "cdc/polling %.2fx; accept->PUBLISHED p50 cdc/polling %.2fx%n",
                        pollers,
                        cdc.feedPerSecond() / polling.feedPerSecond(),
                        cdc.perSecond() / polling.perSecond(),
                        cdc.commitP50Ms() / polling.commitP50Ms(),
                        cdc.publishP50Ms() / polling.publishP50Ms());
            }
        }
    }

    private static Cell find(List<Cell> cells, String feed, int pollers) {
        return cells.stream()
                .filter(c -> c.feed().equals(feed) && c.pollers() == pollers)
                .findFirst()
                .orElse(null);
    }

    private Cell cell(String feed, int pollers, PrintStream out) throws Exception {
        Map<String, String> env =
                servers.environment("feeds-" + feed + "-" + pollers + "-" + System.nanoTime() + ":", feed);
        servers.freshDatabase(env);
        List<ServiceProcess> fleet = new ArrayList<>();
        try {
            int apiPort = BenchServers.port();
            int adminPort = BenchServers.port();
            fleet.add(servers.process(
                    "api-" + feed + "-" + pollers,
                    "server",
                    apiPort,
                    adminPort,
                    env,
                    List.of(
                            "-Xmx1g",
                            "-Ddw.components=API,SEND_WORKER,CALLBACK_WORKER,MAINTENANCE",
                            "-Ddw.pipeline.sendWorker.concurrency=256")));
            List<Integer> pollerAdmins = new ArrayList<>();
            for (int i = 1; i <= pollers; i++) {
                int pollerAdmin = BenchServers.port();
                pollerAdmins.add(pollerAdmin);
                // No stream bound on the pollers: the feed-only phase measures the feed, not the workers behind it.
                fleet.add(servers.process(
                        "poller-" + feed + "-" + pollers + "-" + i,
                        "poller",
                        BenchServers.port(),
                        pollerAdmin,
                        env,
                        List.of(
                                "-Xmx512m",
                                "-Ddw.database.pools.api=1",
                                "-Ddw.database.pools.callbacks=1",
                                "-Ddw.database.pools.pipeline=6",
                                "-Ddw.pipeline.maxStreamEntries=1000000")));
            }
            for (ServiceProcess p : fleet) {
                if (!p.awaitReady(Duration.ofMinutes(3))) {
                    throw new IllegalStateException(p.name() + " did not start; see its log in " + dir);
                }
            }
            String admin = "http://127.0.0.1:" + adminPort;
            E2eLoad load = new E2eLoad("http://127.0.0.1:" + apiPort, admin, admin, KEY);
            load.run(feed + " x" + pollers + " warm-up", Math.max(1000, messages / 10), Duration.ofMinutes(5));
            E2eLoad.Result burst = load.run(feed + " x" + pollers, messages, Duration.ofMinutes(10));
            E2eLoad.print(burst, out);
            Instant pacedFrom = Instant.now();
            long paced = load.paced(pacedRate, Duration.ofSeconds(pacedSeconds), Duration.ofMinutes(2));
            double[] publish = toPublished(pacedFrom);
            double feedRate = feedOnly(load, pollerAdmins);
            return new Cell(
                    feed,
                    pollers,
                    burst.perSecond(),
                    burst.p50Ms(),
                    publish[0],
                    publish[1],
                    publish[2],
                    publish[3],
                    paced,
                    feedRate);
        } finally {
            for (ServiceProcess p : fleet) {
                p.stop();
            }
        }
    }

    /**
     * The feed's own rate: the pollers pause (with CDC the slot keeps what commits meanwhile), a backlog of
     * {@code messages} is accepted, the pollers resume; the backlog over the span of its PUBLISHED events (first to
     * last; CLAIMED where a worker claimed before PUBLISHED landed) is what the feed published per second.
     */
    private double feedOnly(E2eLoad load, List<Integer> pollerAdmins) throws Exception {
        for (int admin : pollerAdmins) {
            BenchServers.task(admin, "pause", "poller");
        }
        Instant from = Instant.now();
        load.accept(messages, 5_000_000);
        for (int admin : pollerAdmins) {
            BenchServers.task(admin, "resume", "poller");
        }
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        try (Connection c = servers.postgres().endpoint().connect("sendlog");
                PreparedStatement st = c.prepareStatement("""
                SELECT count(DISTINCT m.id), extract(epoch FROM max(p.published_at) - min(p.published_at))
                FROM publications p CROSS JOIN unnest(p.message_ids, p.seqs) AS u(message_id, seq)
                JOIN messages m ON m.id = u.message_id
                WHERE u.seq = 1 AND m.accepted_at >= ?""")) {
            st.setObject(1, java.time.OffsetDateTime.ofInstant(from, java.time.ZoneOffset.UTC));
            while (true) {
                try (ResultSet rs = st.executeQuery()) {
                    rs.next();
                    if (rs.getLong(1) >= messages) {
                        return messages / rs.getDouble(2);
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the backlog was not published within 5 minutes");
                }
                Thread.sleep(200);
            }
        }
    }

    /**
     * The median and p99 of accept -> published, then of commit -> published, over the messages accepted since
     * {@code from}, from the log: the messages rows and the publications that name them. Times are the rows' own, and
     * the commit time of the transaction that wrote the message ({@code track_commit_timestamp}; the row's xid column
     * holds the full xid8, the server wants its low 32 bits).
     */
    private double[] toPublished(Instant from) throws SQLException {
        try (Connection c = servers.postgres().endpoint().connect("sendlog");
                PreparedStatement st = c.prepareStatement("""
                     SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY accept_ms), percentile_cont(0.99) WITHIN GROUP (ORDER BY accept_ms),
                            percentile_cont(0.5) WITHIN GROUP (ORDER BY commit_ms), percentile_cont(0.99) WITHIN GROUP (ORDER BY commit_ms)
                     FROM (SELECT extract(epoch FROM p.published_at - m.accepted_at) * 1000 AS accept_ms,
                                  extract(epoch FROM p.published_at - pg_xact_commit_timestamp((m.xid % 4294967296)::text::xid))
                                      * 1000 AS commit_ms
                           FROM publications p CROSS JOIN unnest(p.message_ids, p.seqs) AS u(message_id, seq)
                           JOIN messages m ON m.id = u.message_id
                           WHERE u.seq = 1 AND m.accepted_at >= ?) t""")) {
            st.setObject(1, java.time.OffsetDateTime.ofInstant(from, java.time.ZoneOffset.UTC));
            try (ResultSet rs = st.executeQuery()) {
                rs.next();
                return new double[] {rs.getDouble(1), rs.getDouble(2), rs.getDouble(3), rs.getDouble(4)};
            }
        }
    }
}
