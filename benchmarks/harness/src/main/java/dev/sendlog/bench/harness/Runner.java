package dev.sendlog.bench.harness;

import dev.sendlog.infra.RedisEndpoint;
import dev.sendlog.testkit.TestRedis;
import dev.sendlog.tools.cpu.ProcCpu;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * One run of one system: a fresh database and Redis prefix, the system started as its own process, a warm-up
 * load, then the measured load, waiting until the simulator has every measured message and the system has
 * recorded them; then the process is stopped and the database dropped.
 */
final class Runner {
    /** The provider's latency while a run is measured. */
    static final long MEASURED_LATENCY_MS = 20;
    /**
     * By default the simulator answers at once while a run warms up: the warm-up is there for the JIT and the caches,
     * which the same code paths warm at any latency, and without the 20 ms it is bound by the CPU instead of by C
     * calls in flight.
     */
    static final long DEFAULT_WARM_UP_LATENCY_MS = 0;

    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(180);
    private static final Path LOADAVG = Path.of("/proc/loadavg");

    private final Postgres postgres;
    private final Simulator simulator;
    private final String redisUri;
    private final Path workDir;
    private final long warmUpLatencyMs;
    private final String java = ProcessHandle.current().info().command().orElse("java");
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final List<Double> loadAverages = new ArrayList<>();
    private final List<Double> openLoadAverages = new ArrayList<>();

    Runner(Postgres postgres, Simulator simulator, String redisUri, Path workDir, long warmUpLatencyMs) {
        this.warmUpLatencyMs = warmUpLatencyMs;
        this.postgres = postgres;
        this.simulator = simulator;
        this.redisUri = redisUri;
        this.workDir = workDir;
    }

    RunResult run(SystemUnderTest system, int concurrency, int repeat, int warmup, int messages) throws Exception {
        String tag = system.key() + "_c" + concurrency + "_r" + repeat + "_"
                + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffffL);
        String database = "bench_" + tag;
        postgres.createDatabase(database);
        Files.createDirectories(workDir.resolve("tmp"));
        SystemUnderTest.Run run = new SystemUnderTest.Run(
                database,
                postgres.jdbcUrl(database),
                postgres.user(),
                redisUri,
                "bench:" + tag + ":",
                freePort(),
                freePort(),
                concurrency,
                simulator.baseUrl(),
                workDir,
                0);
        Process process = start(system, run, workDir.resolve(tag + ".log"));
        Progress progress = new Progress(tag);
        try {
            awaitReady(system, run, process);
            progress.step("ready; load average " + Files.readString(LOADAVG).trim());
            long emptyBytes = postgres.databaseSize(database);
            LoadGenerator load = new LoadGenerator("http://127.0.0.1:" + run.port(), system.clientKey());

            simulator.reset();
            simulator.latency(warmUpLatencyMs);
            LoadGenerator.Load warm = load.run(warmup, concurrency, "warm-up");
            awaitDrained(system, run, warm.accepted(), warm.accepted());
            progress.step("warm-up of " + warm.accepted() + " delivered");
            String caughtUp = system.awaitBackgroundCaughtUp(run, DRAIN_TIMEOUT);
            if (!caughtUp.isEmpty()) {
                progress.step(caughtUp);
            }
            simulator.latency(MEASURED_LATENCY_MS);
            simulator.reset();

            List<Long> ownPids = List.of(process.pid());
            Map<Long, Long> cpu0 = ProcCpu.snapshot(ownPids);
            Map<String, Long> threads0 = ProcCpu.threadGroups(process.pid());
            Map<Long, Long> pg0 = ProcCpu.snapshot(postgres.backendPids(database));
            long wal0 = postgres.walPosition();
            loadAverages.add(loadAverage());

            LoadGenerator.Load measured = load.run(messages, concurrency, tag);
            progress.step(measured.accepted() + " accepted");
            awaitDrained(system, run, measured.accepted(), warm.accepted() + measured.accepted());
            progress.step("delivered");
            String stages = system.stageTimings(run);
            if (!stages.isEmpty()) {
                progress.step(stages);
            }

            long wal1 = postgres.walPosition();
            Map<Long, Long> cpu1 = ProcCpu.snapshot(ownPids);
            Map<String, Long> threads1 = ProcCpu.threadGroups(process.pid());
            progress.step(ProcCpu.topGroups(threads0, threads1, 16));
            Map<Long, Long> pg1 = ProcCpu.snapshot(postgres.backendPids(database));
            long bytesAfter = postgres.databaseSize(database);
            progress.step("largest relations: " + postgres.largestRelations(database, 10));
            Map<String, Long> recorded = simulator.recordedAtByReference();
            long duplicates = simulator.duplicateSubmits();
            return result(
                    system,
                    concurrency,
                    repeat,
                    measured,
                    recorded,
                    duplicates,
                    wal1 - wal0,
                    ProcCpu.secondsBetween(cpu0, cpu1),
                    ProcCpu.jitSeconds(threads0, threads1),
                    ProcCpu.secondsBetween(pg0, pg1),
                    emptyBytes,
                    bytesAfter,
                    warm.accepted() + measured.accepted());
        } finally {
            stop(process);
            postgres.dropDatabase(database);
            TestRedis.deleteKeys(RedisEndpoint.parse(redisUri), run.redisPrefix());
            progress.step("stopped, database and Redis keys dropped");
        }
    }

    /**
     * One open-loop ramp of one system: a fresh database and Redis prefix, the system started with
     * {@code settings.concurrency()} provider calls in flight (the baselines' pools capped at
     * {@code settings.baselinePool()}), the closed-loop warm-up, then the simulator at {@code settings.latencyMs()}
     * and the steps from the lowest rate up, until one is not passed. Between two steps: every delivery recorded by
     * the system, its background work caught up, optionally VACUUM ANALYZE, the simulator reset. Each step is
     * printed to stdout (CSV) and to stderr (a line) as it ends.
     */
    List<OpenStep> runOpen(SystemUnderTest system, int repeat, int warmup, OpenLoopReport.Settings settings)
            throws Exception {
        String tag = system.key() + "_open_r" + repeat + "_"
                + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffffL);
        String database = "bench_" + tag;
        postgres.createDatabase(database);
        Files.createDirectories(workDir.resolve("tmp"));
        int pool = Math.min(
                settings.concurrency() + 10, settings.baselinePool() > 0 ? settings.baselinePool() : Integer.MAX_VALUE);
        SystemUnderTest.Run run = new SystemUnderTest.Run(
                database,
                postgres.jdbcUrl(database),
                postgres.user(),
                redisUri,
                "bench:" + tag + ":",
                freePort(),
                freePort(),
                settings.concurrency(),
                simulator.baseUrl(),
                workDir,
                pool);
        Process process = start(system, run, workDir.resolve(tag + ".log"));
        Progress progress = new Progress(tag);
        List<OpenStep> steps = new ArrayList<>();
        try {
            awaitReady(system, run, process);
            progress.step("ready; load average " + Files.readString(LOADAVG).trim());
            String baseUrl = "http://127.0.0.1:" + run.port();
            simulator.reset();
            simulator.latency(warmUpLatencyMs);
            LoadGenerator.Load warm =
                    new LoadGenerator(baseUrl, system.clientKey()).run(warmup, settings.warmupClients(), "warm-up");
            long delivered = warm.accepted();
            awaitDrained(system, run, warm.accepted(), delivered);
            progress.step("warm-up of " + warm.accepted() + " delivered");
            String caughtUp = system.awaitBackgroundCaughtUp(run, DRAIN_TIMEOUT);
            if (!caughtUp.isEmpty()) {
                progress.step(caughtUp);
            }
            simulator.latency(settings.latencyMs());
            OpenLoopGenerator generator = new OpenLoopGenerator();
            for (int k = 0; k < settings.rates().size(); k++) {
                int rate = settings.rates().get(k);
                simulator.reset();
                openLoadAverages.add(loadAverage());
                OpenLoopGenerator.Offered offered = generator.run(
                        OpenLoopGenerator.system(baseUrl, system.clientKey(), tag + "_" + rate),
                        rate,
                        settings.stepSeconds(),
                        settings.p99LimitMs());
                awaitProvider(offered.accepted(), offered.endEpochMicros() + settings.p99LimitMs() * 1000 + 1_000_000);
                OpenStep step = OpenStep.of(
                        system.key(),
                        repeat,
                        k + 1,
                        settings.stepSeconds(),
                        offered,
                        simulator.recordedAtByReference(),
                        simulator.duplicateSubmits(),
                        settings.p99LimitMs());
                steps.add(step);
                System.out.println(step.csv());
                progress.step(step.line());
                if (!step.passed()) {
                    break;
                }
                delivered += offered.accepted();
                awaitDrained(system, run, offered.accepted(), delivered);
                caughtUp = system.awaitBackgroundCaughtUp(run, DRAIN_TIMEOUT);
                if (settings.vacuum()) {
                    postgres.vacuumAnalyze(database);
                }
                progress.step("between steps: deliveries recorded" + (caughtUp.isEmpty() ? "" : ", " + caughtUp)
                        + (settings.vacuum() ? ", VACUUM ANALYZE done" : ""));
            }
            String stages = system.stageTimings(run);
            if (!stages.isEmpty()) {
                progress.step(stages);
            }
            return steps;
        } finally {
            stop(process);
            postgres.dropDatabase(database);
            TestRedis.deleteKeys(RedisEndpoint.parse(redisUri), run.redisPrefix());
            progress.step("stopped, database and Redis keys dropped");
        }
    }

    /**
     * The generator against the simulator alone (answering in {@code latencyMs}), at each of {@code rates} from the
     * lowest for {@code seconds} each, until it sends less than 99% of a rate: up to which rate the generator (and
     * the simulator, which the systems call at the same rate) keeps up on this machine with no system running.
     * Returns a sentence for the report.
     */
    String generatorCheck(List<Integer> rates, double seconds, long latencyMs, long p99LimitMs) throws Exception {
        simulator.latency(latencyMs);
        StringBuilder report = new StringBuilder(String.format(
                Locale.ROOT, "each rate for %.0f s, the simulator" + " answering in %d ms:", seconds, latencyMs));
        double keptUp = 0;
        for (int rate : rates) {
            simulator.reset();
            OpenLoopGenerator.Offered offered = new OpenLoopGenerator()
                    .run(
                            OpenLoopGenerator.simulator(simulator.baseUrl(), "generator-check-" + rate),
                            rate,
                            seconds,
                            p99LimitMs);
            long[] answers =
                    Arrays.stream(offered.answerNanos()).filter(a -> a >= 0).toArray();
            double achieved = offered.achievedPerSecond();
            boolean behind = achieved < OpenStep.GENERATOR_TOLERANCE * rate;
            String line = String.format(
                    Locale.ROOT,
                    " %d/s sent at %.1f/s (%+.2f%%), send lag p99 %.1f ms, answer"
                            + " p50/p99 %.1f/%.1f ms from the scheduled time, %d of %d answered 2xx, at most %d connections%s",
                    rate,
                    achieved,
                    100 * (achieved / rate - 1),
                    offered.sendLagP99Ms(),
                    Stats.percentile(answers, 0.50) / 1e6,
                    Stats.percentile(answers, 0.99) / 1e6,
                    offered.accepted(),
                    offered.scheduled(),
                    offered.peakConnections(),
                    behind
                            ? offered.waitedForConnection() > 0
                                    ? " (**behind**: the simulator held all the connections)"
                                    : " (**behind**)"
                            : "");
            System.err.println("  generator check:" + line);
            report.append(line).append(';');
            if (behind) {
                break;
            }
            keptUp = rate;
        }
        simulator.reset();
        report.setLength(report.length() - 1);
        return String.format(
                Locale.ROOT,
                "within 1%% of the rate up to %s msg/s (%s).",
                keptUp == 0 ? "no" : String.format(Locale.ROOT, "%.0f", keptUp),
                report);
    }

    /** Until the simulator has {@code atProvider} keys or the wall clock passes {@code deadlineEpochMicros}. */
    private void awaitProvider(long atProvider, long deadlineEpochMicros) throws IOException, InterruptedException {
        while (simulator.uniqueKeys() < atProvider && LoadGenerator.now() < deadlineEpochMicros) {
            Thread.sleep(50);
        }
    }

    /** The machine's 1-minute load average at the start of each open-loop step so far. */
    List<Double> openLoadAverages() {
        return List.copyOf(openLoadAverages);
    }

    /** Phases of a run with their seconds, on stderr, to see where the time budget goes. */
    private static final class Progress {
        private final String tag;
        private long last = System.nanoTime();

        Progress(String tag) {
            this.tag = tag;
        }

        void step(String what) {
            long now = System.nanoTime();
            System.err.printf(Locale.ROOT, "  %s: %s (%.1f s)%n", tag, what, (now - last) / 1e9);
            last = now;
        }
    }

    /** The machine's 1-minute load average at the start of each measured load so far. */
    List<Double> loadAverages() {
        return List.copyOf(loadAverages);
    }

    private static double loadAverage() throws IOException {
        return Double.parseDouble(Files.readString(LOADAVG).split(" ")[0]);
    }

    static RunResult result(
            SystemUnderTest system,
            int concurrency,
            int repeat,
            LoadGenerator.Load load,
            Map<String, Long> recordedAt,
            long duplicates,
            long walBytes,
            double cpuSeconds,
            double jitCpuSeconds,
            double postgresCpuSeconds,
            long emptyBytes,
            long bytesAfter,
            int storedMessages) {
        int n = load.ids().length;
        long[] accept = new long[load.accepted()];
        List<Long> e2e = new ArrayList<>(n);
        long lastRecorded = load.firstStartMicros();
        int a = 0;
        for (int i = 0; i < n; i++) {
            String id = load.ids()[i];
            if (id == null) {
                continue;
            }
            accept[a++] = load.roundTripNanos()[i];
            Long at = recordedAt.get(id);
            if (at != null) {
                e2e.add(at - load.startMicros()[i]);
                lastRecorded = Math.max(lastRecorded, at);
            }
        }
        long[] e2eMicros = e2e.stream().mapToLong(Long::longValue).toArray();
        double acceptSeconds = (load.lastEndMicros() - load.firstStartMicros()) / 1e6;
        double e2eSeconds = (lastRecorded - load.firstStartMicros()) / 1e6;
        int delivered = e2eMicros.length;
        return new RunResult(
                system.key(),
                concurrency,
                repeat,
                n,
                load.accepted(),
                delivered,
                duplicates,
                load.accepted() / acceptSeconds,
                Stats.percentile(accept, 0.50) / 1e6,
                Stats.percentile(accept, 0.99) / 1e6,
                delivered / e2eSeconds,
                Stats.percentile(e2eMicros, 0.50) / 1e3,
                Stats.percentile(e2eMicros, 0.99) / 1e3,
                delivered == 0 ? Double.NaN : (double) walBytes / delivered,
                delivered == 0 ? Double.NaN : cpuSeconds * 1000 / delivered,
                delivered == 0 ? Double.NaN : jitCpuSeconds * 1000 / delivered,
                delivered == 0 ? Double.NaN : postgresCpuSeconds * 1000 / delivered,
                emptyBytes,
                bytesAfter,
                storedMessages,
                RunResult.projectTo100k(emptyBytes, bytesAfter, storedMessages));
    }

    private Process start(SystemUnderTest system, SystemUnderTest.Run run, Path log) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(java);
        command.addAll(system.command(run));
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(system.environment(run));
        return builder.start();
    }

    private void awaitReady(SystemUnderTest system, SystemUnderTest.Run run, Process process) throws Exception {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(system.key() + " exited with " + process.exitValue() + " at start");
            }
            try {
                HttpResponse<Void> r = http.send(
                        HttpRequest.newBuilder(URI.create(system.readinessUrl(run)))
                                .timeout(Duration.ofSeconds(2))
                                .GET()
                                .build(),
                        HttpResponse.BodyHandlers.discarding());
                if (r.statusCode() / 100 == 2) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException(system.key() + " did not become ready in " + START_TIMEOUT);
    }

    /** Until the simulator has {@code atProvider} keys and the system has recorded {@code recordedTotal}. */
    private void awaitDrained(SystemUnderTest system, SystemUnderTest.Run run, long atProvider, long recordedTotal)
            throws IOException, InterruptedException, SQLException {
        long deadline = System.nanoTime() + DRAIN_TIMEOUT.toNanos();
        while (simulator.uniqueKeys() < atProvider && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        while (system.delivered(run, postgres) < recordedTotal && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        if (System.nanoTime() >= deadline) {
            System.err.printf(
                    Locale.ROOT,
                    "WARNING %s: not drained within %s (provider has %d of %d)%n",
                    system.key(),
                    DRAIN_TIMEOUT,
                    simulator.uniqueKeys(),
                    atProvider);
        }
    }

    private static void stop(Process process) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
