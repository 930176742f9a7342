package dev.sendlog.bench.harness;

import dev.sendlog.bench.baseline.Options;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The benchmark report: sendlog, the mutable-outbox baseline and the transactionoutbox peer against one provider
 * simulator process, in two scenarios ({@code --scenario closed|open|both}). Closed loop: each concurrency run
 * {@code repeats} times alternating between the systems. Open loop ({@link OpenLoopReport}): the simulator at 1 ms,
 * 256 provider calls in flight, fixed rates stepping up until each system's accept-to-provider-accepted p99 passes the
 * limit. Writes {@code report.md}, {@code runs.csv} / {@code open-steps.csv} and the PNG charts to {@code --out}, and
 * the report into the README between the bench markers when {@code --readme} is given.
 */
public final class BenchMain {
    static final String README_BEGIN = "<!-- bench:begin (written by scripts/bench) -->";
    static final String README_END = "<!-- bench:end -->";

    private BenchMain() {}

    public static void main(String[] args) throws Exception {
        long started = System.nanoTime();
        Options o = Options.parse(
                args,
                Map.ofEntries(
                        Map.entry("sendlog-jar", "service/target/sendlog.jar"),
                        Map.entry("tools-jar", "tools/target/sendlog-tools.jar"),
                        Map.entry("config", "config.yml"),
                        Map.entry("mutable-jar", "benchmarks/mutable-outbox/target/bench-mutable-outbox.jar"),
                        Map.entry(
                                "peer-jar",
                                "benchmarks/transactionoutbox-peer/target/bench-transactionoutbox-peer.jar"),
                        Map.entry("pg-host", "127.0.0.1"),
                        Map.entry("pg-port", "5432"),
                        Map.entry("pg-user", "postgres"),
                        Map.entry("redis", "redis://127.0.0.1:6379"),
                        Map.entry("concurrency", "16,64"),
                        Map.entry("repeats", "3"),
                        Map.entry("messages", "6000"),
                        Map.entry("warmup", "1000"),
                        Map.entry("warmup-latency-ms", Long.toString(Runner.DEFAULT_WARM_UP_LATENCY_MS)),
                        Map.entry("systems", "sendlog,mutable,peer"),
                        Map.entry("out", "benchmarks/results"),
                        Map.entry("work", "target/bench"),
                        Map.entry("readme", ""),
                        Map.entry("build-seconds", "0"),
                        Map.entry("mutable-batch", "500"),
                        Map.entry("mutable-tick-ms", "100"),
                        Map.entry("scenario", "both"),
                        Map.entry("open-rates", "200,400,600,800,1000,1300,1600,2000,2500,3000"),
                        Map.entry("open-step-seconds", "25"),
                        Map.entry("open-concurrency", "256"),
                        Map.entry("open-latency-ms", "1"),
                        Map.entry("open-p99-limit-ms", "1000"),
                        Map.entry("open-repeats", "0"),
                        Map.entry("open-baseline-pool", "34"),
                        Map.entry("open-vacuum", "true"),
                        Map.entry("open-warmup-clients", "64")));
        String scenario = o.text("scenario");
        if (!List.of("closed", "open", "both").contains(scenario)) {
            throw new IllegalArgumentException("--scenario is closed, open or both, not " + scenario);
        }
        boolean closed = !scenario.equals("open");
        boolean open = !scenario.equals("closed");
        Path work = Path.of(o.text("work")).toAbsolutePath();
        Files.createDirectories(work);
        Path sendlogJar = Path.of(o.text("sendlog-jar")).toAbsolutePath();
        List<SystemUnderTest> all = List.of(
                new SystemUnderTest.Sendlog(
                        sendlogJar, Path.of(o.text("config")).toAbsolutePath()),
                new SystemUnderTest.MutableOutbox(
                        Path.of(o.text("mutable-jar")).toAbsolutePath(),
                        o.number("mutable-batch"),
                        o.number("mutable-tick-ms")),
                new SystemUnderTest.TransactionOutboxPeer(
                        Path.of(o.text("peer-jar")).toAbsolutePath()));
        List<String> wanted = Arrays.asList(o.text("systems").split(","));
        List<SystemUnderTest> systems =
                all.stream().filter(s -> wanted.contains(s.key())).toList();
        List<Integer> levels = closed ? numbers(o.text("concurrency")) : List.of();
        int repeats = o.number("repeats");
        OpenLoopReport.Settings openSettings = new OpenLoopReport.Settings(
                numbers(o.text("open-rates")),
                Double.parseDouble(o.text("open-step-seconds")),
                o.number("open-concurrency"),
                o.number("open-latency-ms"),
                o.number("open-p99-limit-ms"),
                o.number("open-baseline-pool"),
                Boolean.parseBoolean(o.text("open-vacuum")),
                o.number("open-repeats") > 0 ? o.number("open-repeats") : repeats,
                o.number("warmup"),
                o.number("open-warmup-clients"));
        if (open && !increasing(openSettings.rates())) {
            throw new IllegalArgumentException("--open-rates must be increasing and positive: " + o.text("open-rates"));
        }
        int messages = o.number("messages");
        int warmup = o.number("warmup");
        int warmupLatencyMs = o.number("warmup-latency-ms");
        Postgres postgres = new Postgres(o.text("pg-host"), o.number("pg-port"), o.text("pg-user"));

        Process simulatorProcess = startSimulator(Path.of(o.text("tools-jar")).toAbsolutePath(), work);
        List<RunResult> runs = new ArrayList<>();
        List<Double> loads = new ArrayList<>();
        List<OpenStep> openSteps = new ArrayList<>();
        List<Double> openLoads = new ArrayList<>();
        String generatorCheck = "";
        try {
            Simulator simulator = new Simulator(readSimulatorUrl(simulatorProcess));
            Runner runner = new Runner(postgres, simulator, o.text("redis"), work, warmupLatencyMs);
            if (closed) {
                System.out.println(RunResult.CSV_HEADER);
                for (int c : levels) {
                    for (int repeat = 1; repeat <= repeats; repeat++) {
                        for (SystemUnderTest system : systems) {
                            RunResult r = runner.run(system, c, repeat, warmup, messages);
                            runs.add(r);
                            System.out.println(r.csv());
                        }
                    }
                }
            }
            if (open) {
                generatorCheck = runner.generatorCheck(
                        openSettings.rates(),
                        Math.min(5, openSettings.stepSeconds()),
                        openSettings.latencyMs(),
                        openSettings.p99LimitMs());
                System.out.println(OpenStep.CSV_HEADER);
                for (int repeat = 1; repeat <= openSettings.repeats(); repeat++) {
                    for (SystemUnderTest system : systems) {
                        openSteps.addAll(runner.runOpen(system, repeat, warmup, openSettings));
                    }
                }
            }
            loads.addAll(runner.loadAverages());
            openLoads.addAll(runner.openLoadAverages());
        } finally {
            simulatorProcess.destroy();
            simulatorProcess.waitFor(10, TimeUnit.SECONDS);
        }

        long seconds = Math.round((System.nanoTime() - started) / 1e9) + Long.parseLong(o.text("build-seconds"));
        String wall = String.format(
                Locale.ROOT, "%d min %02d s (build %s s)", seconds / 60, seconds % 60, o.text("build-seconds"));
        String date = ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'"));
        int cores = Runtime.getRuntime().availableProcessors();
        String postgresVersion = "PostgreSQL " + postgres.text("SHOW server_version");
        Report report = closed
                ? new Report(
                        new Report.Context(
                                date,
                                cores,
                                postgresVersion,
                                messages,
                                warmup,
                                warmupLatencyMs,
                                repeats,
                                levels,
                                wall,
                                systems,
                                loads.stream()
                                        .mapToDouble(Double::doubleValue)
                                        .min()
                                        .orElse(Double.NaN),
                                loads.stream()
                                        .mapToDouble(Double::doubleValue)
                                        .max()
                                        .orElse(Double.NaN)),
                        runs)
                : null;
        OpenLoopReport openReport = open
                ? new OpenLoopReport(
                        openSettings,
                        new OpenLoopReport.Context(
                                date,
                                cores,
                                postgresVersion,
                                wall,
                                openLoads.stream()
                                        .mapToDouble(Double::doubleValue)
                                        .min()
                                        .orElse(Double.NaN),
                                openLoads.stream()
                                        .mapToDouble(Double::doubleValue)
                                        .max()
                                        .orElse(Double.NaN),
                                generatorCheck),
                        systems,
                        openSteps)
                : null;
        Path out = Path.of(o.text("out"));
        Files.createDirectories(out);
        if (report != null) {
            report.charts(out);
            Files.writeString(out.resolve("runs.csv"), report.runsCsv());
        }
        if (openReport != null) {
            openReport.chart(out);
            Files.writeString(out.resolve("open-steps.csv"), openReport.stepsCsv());
        }
        String markdown = markdown(report, openReport, ".");
        Files.writeString(out.resolve("report.md"), "# Benchmark report\n\n" + markdown);
        System.out.println();
        System.out.println(markdown);
        if (!o.text("readme").isEmpty()) {
            Path readme = Path.of(o.text("readme"));
            Files.writeString(
                    readme,
                    withSection(
                            Files.readString(readme),
                            markdown(
                                    report,
                                    openReport,
                                    readme.toAbsolutePath()
                                            .getParent()
                                            .relativize(out.toAbsolutePath())
                                            .toString())));
        }
    }

    /** The closed-loop part, the open-loop part, or both, one after the other. */
    static String markdown(Report closed, OpenLoopReport open, String images) {
        StringBuilder md = new StringBuilder();
        if (closed != null) {
            md.append(closed.markdown(images));
        }
        if (open != null) {
            md.append(md.isEmpty() ? "" : "\n").append(open.markdown(images));
        }
        return md.toString();
    }

    static List<Integer> numbers(String commaSeparated) {
        return Arrays.stream(commaSeparated.split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .map(Integer::parseInt)
                .toList();
    }

    /** Positive and strictly increasing, at least one. */
    static boolean increasing(List<Integer> rates) {
        if (rates.isEmpty() || rates.getFirst() <= 0) {
            return false;
        }
        for (int i = 1; i < rates.size(); i++) {
            if (rates.get(i) <= rates.get(i - 1)) {
                return false;
            }
        }
        return true;
    }

    /** The README with the text between the bench markers replaced (the markers must be there). */
    static String withSection(String readme, String section) {
        int begin = readme.indexOf(README_BEGIN);
        int end = readme.indexOf(README_END);
        if (begin < 0 || end < begin) {
            throw new IllegalArgumentException("the README has no " + README_BEGIN + " ... " + README_END + " section");
        }
        return readme.substring(0, begin + README_BEGIN.length()) + "\n" + section + readme.substring(end);
    }

    /** The provider simulator is a tool (the tools jar's {@code simulator} command), not part of the product jar. */
    static Process startSimulator(Path toolsJar, Path work) throws IOException {
        Path config = work.resolve("simulator.json");
        Files.writeString(config, Simulator.configuration(Runner.MEASURED_LATENCY_MS));
        String java = ProcessHandle.current().info().command().orElse("java");
        return new ProcessBuilder(
                        java, "-jar", toolsJar.toString(), "simulator", "--port", "0", "--config", config.toString())
                .redirectError(work.resolve("simulator.log").toFile())
                .start();
    }

    /** The simulator prints "simulator listening on {base URL}" once it listens. */
    static String readSimulatorUrl(Process simulator) throws IOException {
        BufferedReader out =
                new BufferedReader(new InputStreamReader(simulator.getInputStream(), StandardCharsets.UTF_8));
        for (String line = out.readLine(); line != null; line = out.readLine()) {
            int at = line.indexOf("http://");
            if (at >= 0) {
                Thread drain = new Thread(() -> out.lines().forEach(l -> {}), "simulator-output");
                drain.setDaemon(true);
                drain.start();
                return line.substring(at).trim();
            }
        }
        throw new IllegalStateException("the simulator exited before listening; see simulator.log");
    }
}
