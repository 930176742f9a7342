package dev.sendlog.bench.harness;

import dev.sendlog.infra.RedisEndpoint;
import dev.sendlog.testkit.TestRedis;
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
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final List<Double> loadAverages = new ArrayList<>();

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
        SystemUnderTest.Run run = new SystemUnderTest.Run(database, postgres.jdbcUrl(database), postgres.user(),
                redisUri, "bench:" + tag + ":", freePort(), freePort(), concurrency, simulator.baseUrl(), workDir, 0);
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
            progress.step(ProcCpu.topGroups(threads0, threads1, 8));
            Map<Long, Long> pg1 = ProcCpu.snapshot(postgres.backendPids(database));
            long bytesAfter = postgres.databaseSize(database);
            Map<String, Long> recorded = simulator.recordedAtByReference();
            long duplicates = simulator.duplicateSubmits();
            return result(system, concurrency, repeat, measured, recorded, duplicates, wal1 - wal0,
                    ProcCpu.secondsBetween(cpu0, cpu1), ProcCpu.jitSeconds(threads0, threads1),
                    ProcCpu.secondsBetween(pg0, pg1), emptyBytes, bytesAfter, warm.accepted() + measured.accepted());
        } finally {
            stop(process);
            postgres.dropDatabase(database);
            TestRedis.deleteKeys(RedisEndpoint.parse(redisUri), run.redisPrefix());
            progress.step("stopped, database and Redis keys dropped");
        }
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

    static RunResult result(SystemUnderTest system, int concurrency, int repeat, LoadGenerator.Load load,
                            Map<String, Long> recordedAt, long duplicates, long walBytes, double cpuSeconds,
                            double jitCpuSeconds, double postgresCpuSeconds, long emptyBytes, long bytesAfter,
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
        return new RunResult(system.key(), concurrency, repeat, n, load.accepted(), delivered, duplicates,
                load.accepted() / acceptSeconds, Stats.percentile(accept, 0.50) / 1e6, Stats.percentile(accept, 0.99) / 1e6,
                delivered / e2eSeconds, Stats.percentile(e2eMicros, 0.50) / 1e3, Stats.percentile(e2eMicros, 0.99) / 1e3,
                delivered == 0 ? Double.NaN : (double) walBytes / delivered,
                delivered == 0 ? Double.NaN : cpuSeconds * 1000 / delivered,
                delivered == 0 ? Double.NaN : jitCpuSeconds * 1000 / delivered,
                delivered == 0 ? Double.NaN : postgresCpuSeconds * 1000 / delivered,
                emptyBytes, bytesAfter, storedMessages, RunResult.projectTo100k(emptyBytes, bytesAfter, storedMessages));
    }

    private Process start(SystemUnderTest system, SystemUnderTest.Run run, Path log) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(java);
        command.addAll(system.command(run));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(log.toFile());
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
                HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create(system.readinessUrl(run)))
                        .timeout(Duration.ofSeconds(2)).GET().build(), HttpResponse.BodyHandlers.discarding());
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
            System.err.printf(Locale.ROOT, "WARNING %s: not drained within %s (provider has %d of %d)%n",
                    system.key(), DRAIN_TIMEOUT, simulator.uniqueKeys(), atProvider);
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
