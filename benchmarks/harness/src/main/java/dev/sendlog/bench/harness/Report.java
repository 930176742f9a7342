package dev.sendlog.bench.harness;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** The Markdown table of medians and ratios, and the PNG charts, from the runs of one benchmark. */
final class Report {
    /** A column of the table: its heading, how to read it from a run, and its number format. */
    record Metric(String heading, ToDoubleFunction<RunResult> value, String format) {}

    static final List<Metric> METRICS = List.of(
            new Metric("accepted msg/s", RunResult::acceptedPerSecond, "%.0f"),
            new Metric("accept p50 ms", RunResult::acceptP50Ms, "%.1f"),
            new Metric("accept p99 ms", RunResult::acceptP99Ms, "%.1f"),
            new Metric("e2e msg/s", RunResult::e2ePerSecond, "%.0f"),
            new Metric("e2e p50 ms", RunResult::e2eP50Ms, "%.0f"),
            new Metric("e2e p99 ms", RunResult::e2eP99Ms, "%.0f"),
            new Metric("WAL bytes/msg", RunResult::walBytesPerMessage, "%.0f"),
            new Metric("CPU s/1k msgs (system)", RunResult::systemCpuPer1k, "%.2f"),
            new Metric("of which its JIT compilers", RunResult::jitCpuPer1k, "%.2f"),
            new Metric("CPU s/1k msgs (its PG backends)", RunResult::postgresCpuPer1k, "%.2f"),
            new Metric("DB MB per 100k msgs", r -> r.projectedBytesPer100k() / 1e6, "%.1f"));

    /** Everything the report says about how it was run. */
    record Context(
            String date,
            int cores,
            String postgresVersion,
            int messages,
            int warmup,
            long warmupLatencyMs,
            int repeats,
            List<Integer> concurrency,
            String wallTime,
            List<SystemUnderTest> systems,
            double minLoad,
            double maxLoad) {}

    /** One colour per system: sendlog first. */
    private static final Color[] COLORS = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c)};

    private final Context context;
    private final List<RunResult> runs;

    Report(Context context, List<RunResult> runs) {
        this.context = context;
        this.runs = runs;
    }

    double median(String system, int concurrency, ToDoubleFunction<RunResult> metric) {
        return Stats.median(runs.stream()
                .filter(r -> r.system().equals(system) && r.concurrency() == concurrency)
                .mapToDouble(metric)
                .toArray());
    }

    /** The report in Markdown; {@code images} is the folder of the PNGs as seen from where it is shown. */
    String markdown(String images) {
        StringBuilder md = new StringBuilder();
        SystemUnderTest sendlog = context.systems().getFirst();
        md.append(String.format(
                Locale.ROOT,
                "Measured %s on this machine (%d cores, %s), all three systems, the "
                        + "provider simulator (20 ms per submit), PostgreSQL, Redis and the load generator on the same "
                        + "machine. Each cell is the median of %d runs per system, alternating between the systems "
                        + "(A B C A B C ...); each run submits %,d messages after a warm-up of %,d (the simulator "
                        + "answering %s during the warm-up, and the measured load starting once sendlog's timers have "
                        + "caught up), through the same closed-loop HTTP load generator with as many clients as the "
                        + "concurrency, which is also each system's number of provider workers. Whole run, build "
                        + "included: %s. The 1-minute load average at the start of the measured loads ranged from "
                        + "%.1f to %.1f.%n%n",
                context.date(),
                context.cores(),
                context.postgresVersion(),
                context.repeats(),
                context.messages(),
                context.warmup(),
                context.warmupLatencyMs() == 0 ? "at once" : "after " + context.warmupLatencyMs() + " ms",
                context.wallTime(),
                context.minLoad(),
                context.maxLoad()));
        md.append("| concurrency | system |");
        METRICS.forEach(m -> md.append(' ').append(m.heading()).append(" |"));
        md.append("\n|---:|---|");
        METRICS.forEach(m -> md.append("---:|"));
        md.append('\n');
        for (int c : context.concurrency()) {
            for (SystemUnderTest system : context.systems()) {
                md.append("| ").append(c).append(" | ").append(system.label()).append(" |");
                for (Metric m : METRICS) {
                    md.append(' ')
                            .append(format(m.format(), median(system.key(), c, m.value())))
                            .append(" |");
                }
                md.append('\n');
            }
        }
        md.append(String.format(
                Locale.ROOT,
                "%nDB size is pg_database_size after the run's %,d messages (warm-up "
                        + "included), projected to 100,000: the empty schema plus the growth per message times 100,000 "
                        + "(projected from %,d). WAL is the cluster's pg_current_wal_lsn difference around the measured "
                        + "messages, each system running alone. CPU is utime + stime from /proc of the system's own "
                        + "process, and separately of the PostgreSQL backends connected to its database; neither counts "
                        + "the simulator or the load generator. \"Of which its JIT compilers\" is the part of the system's CPU "
                        + "that its C1 and C2 compiler threads used (/proc/<pid>/task): work still left from the warm-up, "
                        + "which a process that has run for longer no longer pays. WAL counts the whole cluster, so anything "
                        + "else writing to it at the time adds to it. The clients submit as fast as each system accepts, so "
                        + "whenever a system accepts faster than it delivers, its end-to-end latency includes the queue that "
                        + "builds up during the run.%n%n",
                context.messages() + context.warmup(),
                context.messages() + context.warmup()));

        md.append("### Ratios: sendlog ÷ alternative (medians)\n\n");
        md.append("For msg/s above 1 favours sendlog; for latency, WAL, CPU and size below 1 favours sendlog.\n\n");
        md.append("| concurrency | alternative |");
        METRICS.forEach(m -> md.append(' ').append(m.heading()).append(" |"));
        md.append("\n|---:|---|");
        METRICS.forEach(m -> md.append("---:|"));
        md.append('\n');
        for (int c : context.concurrency()) {
            for (SystemUnderTest other :
                    context.systems().subList(1, context.systems().size())) {
                md.append("| ").append(c).append(" | ").append(other.label()).append(" |");
                for (Metric m : METRICS) {
                    md.append(' ')
                            .append(format(
                                    "%.2f×",
                                    Stats.ratio(
                                            median(sendlog.key(), c, m.value()), median(other.key(), c, m.value()))))
                            .append(" |");
                }
                md.append('\n');
            }
        }

        md.append("\n### Targets: the write budget against the mutable outbox\n\n");
        md.append("Per message, sendlog's WAL, its database size and its CPU (its process without its JIT compilers, "
                + "plus its PostgreSQL backends) at most the mutable outbox's in the same run (DESIGN.md, invariant "
                + "15). The earlier throughput targets (3× and 2× at a 20 ms provider) are withdrawn: C calls of 20 ms "
                + "cap every system at 50·C msg/s, so the open-loop scenario below measures throughput instead.\n\n");
        for (int c : context.concurrency()) {
            for (SystemUnderTest other :
                    context.systems().subList(1, context.systems().size())) {
                if (!(other instanceof SystemUnderTest.MutableOutbox)) {
                    continue;
                }
                double wal = Stats.ratio(
                        median(sendlog.key(), c, RunResult::walBytesPerMessage),
                        median(other.key(), c, RunResult::walBytesPerMessage));
                double size = Stats.ratio(
                        median(sendlog.key(), c, RunResult::projectedBytesPer100k),
                        median(other.key(), c, RunResult::projectedBytesPer100k));
                double cpu = Stats.ratio(
                        median(sendlog.key(), c, Report::cpuWithoutJit), median(other.key(), c, Report::cpuWithoutJit));
                md.append(String.format(
                        Locale.ROOT,
                        "- concurrency %d, against %s: WAL per message %.2f× (%s); "
                                + "DB size per 100k %.2f× (%s); CPU without the JIT, process plus PG backends %.2f× "
                                + "(%s)%n",
                        c,
                        other.label(),
                        wal,
                        verdict(wal),
                        size,
                        verdict(size),
                        cpu,
                        verdict(cpu)));
            }
        }

        md.append("\n### Configuration (C = the concurrency)\n\n");
        for (SystemUnderTest system : context.systems()) {
            md.append("- ")
                    .append(system.label())
                    .append(": ")
                    .append(system.configuration())
                    .append('\n');
        }
        md.append("\n![e2e and accepted throughput against concurrency](")
                .append(images)
                .append("/throughput.png)\n");
        md.append("![e2e latency against concurrency](").append(images).append("/latency.png)\n");
        return md.toString();
    }

    /** The CPU the write budget counts: the system's process without its JIT compilers, plus its PostgreSQL backends. */
    static double cpuWithoutJit(RunResult r) {
        return r.systemCpuPer1k() - r.jitCpuPer1k() + r.postgresCpuPer1k();
    }

    private static String verdict(double ratio) {
        return ratio <= 1 ? "target ≤ 1×: **met**" : "target ≤ 1×: **not met**";
    }

    /** Runs one by one, in the order they ran. */
    String runsCsv() {
        StringBuilder csv = new StringBuilder(RunResult.CSV_HEADER).append('\n');
        runs.forEach(r -> csv.append(r.csv()).append('\n'));
        return csv.toString();
    }

    void charts(Path folder) throws IOException {
        Files.createDirectories(folder);
        XYChart throughput = chart("Throughput against concurrency (median of runs)", "messages per second");
        XYChart latency = chart("End-to-end latency against concurrency (median of runs)", "milliseconds (log scale)");
        latency.getStyler().setYAxisLogarithmic(true);
        double[] x =
                context.concurrency().stream().mapToDouble(Integer::doubleValue).toArray();
        for (int i = 0; i < context.systems().size(); i++) {
            SystemUnderTest system = context.systems().get(i);
            Color color = COLORS[i % COLORS.length];
            series(
                    throughput,
                    system.label() + ": end to end",
                    x,
                    system,
                    RunResult::e2ePerSecond,
                    SeriesLines.SOLID,
                    color);
            series(
                    throughput,
                    system.label() + ": accepted",
                    x,
                    system,
                    RunResult::acceptedPerSecond,
                    SeriesLines.DASH_DASH,
                    color);
            series(latency, system.label() + ": e2e p99", x, system, RunResult::e2eP99Ms, SeriesLines.SOLID, color);
            series(latency, system.label() + ": e2e p50", x, system, RunResult::e2eP50Ms, SeriesLines.DASH_DASH, color);
        }
        BitmapEncoder.saveBitmap(
                throughput, folder.resolve("throughput.png").toString(), BitmapEncoder.BitmapFormat.PNG);
        BitmapEncoder.saveBitmap(latency, folder.resolve("latency.png").toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    private XYChart chart(String title, String yTitle) {
        XYChart chart = new XYChartBuilder()
                .width(900)
                .height(540)
                .title(title)
                .xAxisTitle("client and worker concurrency")
                .yAxisTitle(yTitle)
                .build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        chart.getStyler().setXAxisDecimalPattern("#");
        return chart;
    }

    /** A line of medians; points that are unknown (or not positive, on a logarithmic axis) are left out. */
    private void series(
            XYChart chart,
            String name,
            double[] x,
            SystemUnderTest system,
            ToDoubleFunction<RunResult> metric,
            BasicStroke line,
            Color color) {
        boolean logarithmic = chart.getStyler().isYAxisLogarithmic();
        List<Double> xs = new ArrayList<>();
        List<Double> ys = new ArrayList<>();
        for (int i = 0; i < x.length; i++) {
            double y = median(system.key(), context.concurrency().get(i), metric);
            if (!Double.isNaN(y) && (!logarithmic || y > 0)) {
                xs.add(x[i]);
                ys.add(y);
            }
        }
        if (xs.isEmpty()) {
            return;
        }
        XYSeries series = chart.addSeries(
                name,
                xs.stream().mapToDouble(Double::doubleValue).toArray(),
                ys.stream().mapToDouble(Double::doubleValue).toArray());
        series.setLineStyle(line);
        series.setLineColor(color);
        series.setMarkerColor(color);
        series.setMarker(SeriesMarkers.CIRCLE);
    }

    private static String format(String format, double value) {
        return Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, format, value);
    }
}
