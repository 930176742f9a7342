package dev.sendlog.bench.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** One of the compared systems: how to start it as its own process, where it listens, how much it delivered. */
sealed interface SystemUnderTest {
    /**
     * Where one run of a system lives: its own database, Redis prefix and ports. {@code baselinePool} is the size of
     * a baseline's connection pool, 0 for its own default (C + 10); sendlog's pools are those of its config.yml.
     */
    record Run(
            String database,
            String jdbcUrl,
            String dbUser,
            String redisUri,
            String redisPrefix,
            int port,
            int adminPort,
            int concurrency,
            String simulatorUrl,
            Path workDir,
            int baselinePool) {}

    /** Short name, also used in database names. */
    String key();

    /** As the report shows it. */
    String label();

    /** The arguments after {@code java}. */
    List<String> command(Run run);

    default Map<String, String> environment(Run run) {
        return Map.of();
    }

    /** Answers 2xx once the system takes messages: the baselines' {@code GET /health}. */
    default String readinessUrl(Run run) {
        return "http://127.0.0.1:" + run.port() + "/health";
    }

    /** Messages the system itself has recorded as accepted by the provider. */
    long delivered(Run run, Postgres postgres) throws IOException, InterruptedException, SQLException;

    /**
     * Background work the system does after delivery (sendlog's status projection) lags behind the load; the
     * harness waits for this between the warm-up and the measured load, so that none of the warm-up's work is
     * counted in the measured run. Returns what it waited for, or empty when the system has no such work.
     */
    default String awaitBackgroundCaughtUp(Run run, Duration timeout) throws IOException, InterruptedException {
        return "";
    }

    /**
     * Its own timings of the stages of a message, for the progress lines (empty when it exposes none): where the
     * time of a run went inside the system.
     */
    default String stageTimings(Run run) throws IOException, InterruptedException {
        return "";
    }

    /** The authorization key its client API wants (the baselines ignore it). */
    default String clientKey() {
        return "demo-client-key";
    }

    /** How it is configured, for the report, with C standing for the run's concurrency. */
    String configuration();

    /** sendlog as shipped: {@code sendlog.jar server config.yml}, send workers at the run's concurrency. */
    record Sendlog(Path jar, Path config) implements SystemUnderTest {
        private static final HttpClient HTTP = HttpClient.newHttpClient();
        private static final ObjectMapper JSON = new ObjectMapper();

        @Override
        public String key() {
            return "sendlog";
        }

        @Override
        public String label() {
            return "sendlog";
        }

        @Override
        public List<String> command(Run run) {
            return List.of(
                    "-Djava.io.tmpdir=" + run.workDir().resolve("tmp"),
                    "-Ddw.server.applicationConnectors[0].port=" + run.port(),
                    "-Ddw.server.adminConnectors[0].port=" + run.adminPort(),
                    "-Ddw.logging.level=WARN",
                    "-Ddw.pipeline.sendWorker.concurrency=" + run.concurrency(),
                    "-jar",
                    jar.toString(),
                    "server",
                    config.toString());
        }

        @Override
        public Map<String, String> environment(Run run) {
            return Map.of(
                    "SENDLOG_DATABASE_URL",
                    run.jdbcUrl(),
                    "SENDLOG_DATABASE_USER",
                    run.dbUser(),
                    "SENDLOG_REDIS_SEND_URI",
                    run.redisUri(),
                    "SENDLOG_REDIS_PREFIX",
                    run.redisPrefix(),
                    "SENDLOG_SIM_URL",
                    run.simulatorUrl(),
                    "SENDLOG_PUBLIC_URL",
                    "http://127.0.0.1:" + run.port(),
                    "SENDLOG_ACCESS_LOG",
                    "WARN");
        }

        @Override
        public String readinessUrl(Run run) {
            return "http://127.0.0.1:" + run.adminPort() + "/healthcheck";
        }

        @Override
        public long delivered(Run run, Postgres postgres) throws IOException, InterruptedException {
            return metrics(run)
                    .path("counters")
                    .path("messages.sent")
                    .path("count")
                    .asLong();
        }

        /**
         * Until the timers' lag (how long the most overdue publication check has waited) is zero: no background work of
         * the warm-up is overdue when the measured load starts.
         */
        @Override
        public String awaitBackgroundCaughtUp(Run run, Duration timeout) throws IOException, InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            double lag = Double.NaN;
            while (System.nanoTime() < deadline) {
                lag = metrics(run)
                        .path("gauges")
                        .path("timers.lag.seconds")
                        .path("value")
                        .asDouble(Double.NaN);
                if (lag == 0) {
                    return "timers caught up";
                }
                Thread.sleep(200);
            }
            return String.format(Locale.ROOT, "WARNING: the timers are still %.1f s behind after %s", lag, timeout);
        }

        /** Mean and p99 in ms of the send stages, from the timers on its admin port (their window is the last minute). */
        @Override
        public String stageTimings(Run run) throws IOException, InterruptedException {
            JsonNode timers = metrics(run).path("timers");
            StringBuilder line =
                    new StringBuilder("stages, ms mean/p99 over the last minute (the end of the warm-up included):");
            for (String stage : List.of(
                    "send.queue.wait",
                    "send.claim",
                    "send.provider",
                    "send.result",
                    "send.accepted.to.sent",
                    "poller.round",
                    "timers.round")) {
                JsonNode t = timers.path(stage);
                double toMillis = switch (t.path("duration_units").asText()) {
                    case "seconds" -> 1e3;
                    case "microseconds" -> 1e-3;
                    default -> 1;
                };
                line.append(String.format(
                        Locale.ROOT,
                        " %s %.1f/%.1f",
                        stage,
                        t.path("mean").asDouble(Double.NaN) * toMillis,
                        t.path("p99").asDouble(Double.NaN) * toMillis));
            }
            return line.toString();
        }

        private static JsonNode metrics(Run run) throws IOException, InterruptedException {
            HttpResponse<String> metrics = HTTP.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + run.adminPort() + "/metrics"))
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return JSON.readTree(metrics.body());
        }

        @Override
        public String configuration() {
            return "`sendlog.jar server config.yml` as shipped (group commit, 16 shards, pools api 10 + pipeline 12 +"
                    + " callbacks 8 + maintenance 4 = 34 connections), logging at WARN, `pipeline.sendWorker.concurrency=C`"
                    + " (C provider calls in flight at most, 2C jobs held: `jobsPerCallSlot` 2)";
        }
    }

    /** The mutable-outbox BASELINE of {@code benchmarks/mutable-outbox}. */
    record MutableOutbox(Path jar, int batch, int tickMillis) implements SystemUnderTest {
        @Override
        public String key() {
            return "mutable";
        }

        @Override
        public String label() {
            return "mutable outbox (baseline)";
        }

        @Override
        public List<String> command(Run run) {
            return baseline(
                    jar,
                    run,
                    "--redis",
                    run.redisUri(),
                    "--prefix",
                    run.redisPrefix(),
                    "--batch",
                    Integer.toString(batch),
                    "--tick-ms",
                    Integer.toString(tickMillis));
        }

        @Override
        public long delivered(Run run, Postgres postgres) throws SQLException {
            return postgres.queryLong(run.database(), "SELECT count(*) FROM outbox WHERE status = 'SENT'");
        }

        @Override
        public String configuration() {
            return "C worker threads (BLPOP, provider call, UPDATE to SENT), one relay thread claiming " + batch
                    + " PENDING rows per tick of " + tickMillis
                    + " ms with FOR UPDATE SKIP LOCKED, then per row an RPUSH"
                    + " and an UPDATE to QUEUED, one commit per tick; HikariCP C + 10 connections";
        }
    }

    /** The transactionoutbox-core peer of {@code benchmarks/transactionoutbox-peer}. */
    record TransactionOutboxPeer(Path jar) implements SystemUnderTest {
        @Override
        public String key() {
            return "peer";
        }

        @Override
        public String label() {
            return "transactionoutbox 4.2.268 (peer)";
        }

        @Override
        public List<String> command(Run run) {
            return baseline(jar, run);
        }

        @Override
        public long delivered(Run run, Postgres postgres) throws SQLException {
            return postgres.queryLong(run.database(), "SELECT count(*) FROM messages WHERE provider_id IS NOT NULL");
        }

        @Override
        public String configuration() {
            return "TransactionManager.fromDataSource, Persistor.forDialect(POSTGRESQL_9), Submitter.withExecutor(a fixed"
                    + " pool of C threads), blockAfterAttempts 5, attemptFrequency 30 s, flush() every 1 s; each accept"
                    + " INSERTs a messages row and schedules the call in one transaction; HikariCP C + 10 connections";
        }
    }

    private static List<String> baseline(Path jar, Run run, String... extra) {
        List<String> args = new ArrayList<>(List.of(
                "-jar",
                jar.toString(),
                "--port",
                Integer.toString(run.port()),
                "--jdbc-url",
                run.jdbcUrl(),
                "--db-user",
                run.dbUser(),
                "--provider-url",
                run.simulatorUrl(),
                "--workers",
                Integer.toString(run.concurrency())));
        if (run.baselinePool() > 0) {
            args.addAll(List.of("--pool", Integer.toString(run.baselinePool())));
        }
        args.addAll(List.of(extra));
        return args;
    }
}
