package dev.sendlog.bench.harness;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The open-loop scenario's arithmetic and its part of the report: each system's highest sustained rate, the common
 * rate all sustained, the latencies there, and the targets on the sustained rates.
 */
final class OpenLoopReport {
    /** How the scenario ran. */
    record Settings(
            List<Integer> rates,
            double stepSeconds,
            int concurrency,
            long latencyMs,
            long p99LimitMs,
            int baselinePool,
            boolean vacuum,
            int repeats,
            int warmup,
            int warmupClients) {}

    /** How it was measured: the machine, the time, and the generator check against the simulator alone. */
    record Context(
            String date,
            int cores,
            String postgresVersion,
            String wallTime,
            double minLoad,
            double maxLoad,
            String generatorCheck) {}

    /**
     * A highest sustained rate. {@code lowerBound}: the ramp did not end at a failure of the system (it passed every
     * step, or the generator fell behind at the next), so the system may sustain more. {@code why} says how it ended.
     */
    record Sustained(double perSecond, boolean lowerBound, String why) {
        String text() {
            return String.format(Locale.ROOT, "%s%.0f", lowerBound ? "≥ " : "", perSecond);
        }
    }

    /** sendlog's highest sustained rate must be at least this many times the mutable outbox's. */
    static final double TARGET_OVER_MUTABLE = 1.5;
    /** ... and this many times transactionoutbox's. */
    static final double TARGET_OVER_PEER = 2;

    private static final Color[] COLORS = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c)};

    private final Settings settings;
    private final Context context;
    private final List<SystemUnderTest> systems;
    private final List<OpenStep> steps;

    OpenLoopReport(Settings settings, Context context, List<SystemUnderTest> systems, List<OpenStep> steps) {
        this.settings = settings;
        this.context = context;
        this.systems = systems;
        this.steps = steps;
    }

    /**
     * The highest sustained rate of one ramp (its steps in the order they ran, up to and including the first one
     * not passed): the last step passed before the first one not passed; 0 when the first was not passed.
     */
    static Sustained sustained(List<OpenStep> ramp, int rungs) {
        double last = 0;
        for (OpenStep step : ramp) {
            if (step.passed()) {
                last = step.offeredPerSecond();
                continue;
            }
            String at = String.format(Locale.ROOT, " at %.0f msg/s", step.offeredPerSecond());
            return switch (step.verdict()) {
                case GENERATOR_BEHIND ->
                    new Sustained(
                            last,
                            true,
                            String.format(
                                    Locale.ROOT,
                                    "the generator fell behind%s (sent %.1f/s)",
                                    at,
                                    step.achievedPerSecond()));
                case ERRORS ->
                    new Sustained(
                            last,
                            false,
                            String.format(
                                    Locale.ROOT,
                                    "%d refused or failed and %d unanswered requests%s",
                                    step.errors(),
                                    step.unanswered(),
                                    at));
                case P99 ->
                    new Sustained(
                            last,
                            false,
                            "accept-to-provider-accepted p99 " + OpenStep.ms(step.e2eP99Ms()) + " ms" + at);
                case PASSED -> throw new IllegalStateException("not reached");
            };
        }
        return new Sustained(
                last,
                true,
                ramp.size() >= rungs
                        ? String.format(Locale.ROOT, "passed every step up to %.0f msg/s", last)
                        : "the ramp stopped after " + ramp.size() + " of " + rungs + " steps");
    }

    /**
     * The repeats' middle value, the lower of the two middle ones for an even count, so that it is always a rate
     * that at least half of the repeats sustained. A lower bound only if every repeat at that rate was one.
     */
    static Sustained median(List<Sustained> repeats) {
        if (repeats.isEmpty()) {
            return new Sustained(0, true, "no ramp ran");
        }
        List<Sustained> sorted = repeats.stream()
                .sorted(Comparator.comparingDouble(Sustained::perSecond))
                .toList();
        Sustained middle = sorted.get((sorted.size() - 1) / 2);
        return sorted.stream()
                .filter(s -> s.perSecond() == middle.perSecond() && !s.lowerBound())
                .findFirst()
                .orElse(middle);
    }

    /** The highest rate every system sustained: the lowest of their sustained rates; 0 when one sustained none. */
    static double commonRate(Collection<Sustained> systems) {
        return systems.stream().mapToDouble(Sustained::perSecond).min().orElse(0);
    }

    /**
     * A target line: sendlog's highest sustained rate over the other's, against {@code needed}. Where a rate is only
     * a lower bound the ratio is one too (sendlog's) or an upper bound (the other's): the target is met or not met
     * when the bound decides it, and otherwise not determined by this run.
     */
    static String target(String otherLabel, Sustained sendlog, Sustained other, double needed) {
        String neededText = String.format(Locale.ROOT, needed == Math.rint(needed) ? "%.0f×" : "%.1f×", needed);
        String head = String.format(
                Locale.ROOT,
                "- against %s: highest sustained rate %s against %s msg/s",
                otherLabel,
                sendlog.text(),
                other.text());
        if (other.perSecond() == 0) {
            String verdict = sendlog.perSecond() > 0 && !other.lowerBound()
                    ? "**met**"
                    : "**not determined**: "
                            + (sendlog.perSecond() == 0
                                    ? "neither sustained the lowest rate"
                                    : "the generator fell behind at the other's first step");
            return String.format(Locale.ROOT, "%s (target ≥ %s: %s)", head, neededText, verdict);
        }
        double ratio = sendlog.perSecond() / other.perSecond();
        boolean meets = ratio >= needed;
        String verdict;
        String bound = "";
        if (sendlog.lowerBound() && other.lowerBound()) {
            verdict = "**not determined**: neither ramp ended at a failure of the system";
            bound = "~";
        } else if (sendlog.lowerBound()) {
            bound = "≥ ";
            verdict = meets ? "**met**" : "**not determined**: sendlog's ramp did not end at a failure of sendlog";
        } else if (other.lowerBound()) {
            bound = "≤ ";
            verdict = meets
                    ? "**not determined**: the other's ramp did not end at a failure of the other"
                    : "**not met**";
        } else {
            verdict = meets ? "**met**" : "**not met**";
        }
        return String.format(Locale.ROOT, "%s: %s%.2f× (target ≥ %s: %s)", head, bound, ratio, neededText, verdict);
    }

    /** The steps of one system's ramp in one repeat, in the order they ran. */
    List<OpenStep> ramp(String system, int repeat) {
        return steps.stream()
                .filter(s -> s.system().equals(system) && s.repeat() == repeat)
                .sorted(Comparator.comparingInt(OpenStep::step))
                .toList();
    }

    Sustained sustained(String system) {
        List<Sustained> repeats = new ArrayList<>();
        for (int r = 1; r <= settings.repeats(); r++) {
            List<OpenStep> ramp = ramp(system, r);
            if (!ramp.isEmpty()) {
                repeats.add(sustained(ramp, settings.rates().size()));
            }
        }
        return median(repeats);
    }

    /** The median over the repeats that ran the step at {@code rate}; NaN when none did. */
    double medianAt(String system, double rate, ToDoubleFunction<OpenStep> metric) {
        return Stats.median(steps.stream()
                .filter(s -> s.system().equals(system) && s.offeredPerSecond() == rate)
                .mapToDouble(metric)
                .toArray());
    }

    private long repeatsAt(String system, double rate) {
        return steps.stream()
                .filter(s -> s.system().equals(system) && s.offeredPerSecond() == rate)
                .count();
    }

    String markdown(String images) {
        StringBuilder md = new StringBuilder();
        Settings s = settings;
        String rates = s.rates().stream().map(String::valueOf).collect(Collectors.joining(", "));
        md.append("### Open loop: where the provider is not the wall\n\n");
        md.append(String.format(
                Locale.ROOT,
                "Measured %s on this machine (%d cores, %s), the systems, the simulator,"
                        + " PostgreSQL, Redis and the load generator all on it; whole run, build included: %s; the 1-minute"
                        + " load average at the start of the steps ranged from %.1f to %.1f.%n%n",
                context.date(),
                context.cores(),
                context.postgresVersion(),
                context.wallTime(),
                context.minLoad(),
                context.maxLoad()));
        md.append(String.format(
                Locale.ROOT,
                "The provider simulator answers each submit in %d ms, and every system may have"
                        + " %d provider calls in flight (sendlog's `pipeline.sendWorker.concurrency`, the baselines' worker"
                        + " threads). The baselines' connection pools are %s connections instead of C + 10 (34 is"
                        + " sendlog's own total: api 10, pipeline 12, callbacks 8, maintenance 4), as this PostgreSQL"
                        + " allows 100 and other work shares it: the mutable outbox holds a connection only for an INSERT or"
                        + " an UPDATE;"
                        + " transactionoutbox holds one through each provider call, so at most that many of its calls are in"
                        + " flight (at these rates and a %d ms provider far fewer are needed). The load is open-loop: %s msg/s,"
                        + " %.0f s each, the requests evenly spaced and each sent at its scheduled time whether or not earlier"
                        + " ones were answered (a virtual thread each, over keep-alive connections, as many as are in"
                        + " flight, up to %d), every latency taken from the scheduled time, so that a stalled system is"
                        + " charged for the requests queued behind the stall (no coordinated omission). Each system runs its"
                        + " whole ramp in one process with one database of its own, the steps one after another from the"
                        + " lowest rate, after a closed-loop warm-up of %,d messages (%d clients, the simulator answering"
                        + " at once); one database for all steps, not one per step, because a fresh one would mean a fresh,"
                        + " cold process at every step. Between two steps the harness waits until the system has recorded"
                        + " every delivery (and sendlog's timers have caught up)%s, and resets the simulator's records.%n%n",
                s.latencyMs(),
                s.concurrency(),
                s.baselinePool() > 0 ? "min(C + 10, " + s.baselinePool() + ")" : "C + 10",
                s.latencyMs(),
                rates,
                s.stepSeconds(),
                OpenLoopGenerator.MAX_CONNECTIONS,
                s.warmup(),
                s.warmupClients(),
                s.vacuum()
                        ? ", then runs VACUUM ANALYZE on its database (this server runs with autovacuum off, and the"
                                + " ramp writes far more rows than a closed-loop run)"
                        : ""));
        md.append(String.format(
                Locale.ROOT,
                "A step passes when every request was accepted (202) and the p99 of"
                        + " accept-to-provider-accepted (from the scheduled time to the simulator's record of the system's"
                        + " first submit of the message, `GET /v1/records`; a message not recorded by the end of the step"
                        + " plus %d ms counts as later than that) is at most %d ms. A system's highest sustained rate is the"
                        + " last step it passed before its first failed one (its ramp stops there): the median of %d"
                        + " repeats (the lower middle one for an even count), the systems alternating (A B C A B C ...). A"
                        + " step in which the generator's requests went out at less than 99%% of the offered rate judges"
                        + " nothing: the ramp stops there and the rate reached is marked ≥, as when a system passed every"
                        + " step. Each step's figures are in `open-steps.csv`.%n%n",
                s.p99LimitMs(),
                s.p99LimitMs(),
                s.repeats()));
        if (!context.generatorCheck().isEmpty()) {
            md.append("Generator check against the simulator alone: ")
                    .append(context.generatorCheck())
                    .append("\n\n");
        }

        List<Sustained> sustained =
                systems.stream().map(sys -> sustained(sys.key())).toList();
        double sustainedByAll = commonRate(sustained);
        // With no rate sustained by all, the lowest offered rate: every ramp ran it.
        double common = sustainedByAll > 0 ? sustainedByAll : s.rates().getFirst();
        md.append(
                sustainedByAll > 0
                        ? String.format(
                                Locale.ROOT,
                                "Latencies at %.0f msg/s, the highest rate all %d sustained",
                                common,
                                systems.size())
                        : String.format(
                                Locale.ROOT,
                                "**No rate was sustained by all of them**: latencies at the lowest rate"
                                        + " offered, %.0f msg/s, which not all sustained",
                                common));
        md.append(
                " (median of the repeats that ran that step). The generator's send lag (from a request's scheduled time"
                        + " until its bytes went out: the load generator's own delay, on a machine it shares with the system) is"
                        + " part of both latencies.\n\n");
        md.append(
                "| system | highest sustained msg/s | accept p50 ms | accept p99 ms | accept-to-provider-accepted p50 ms"
                        + " | accept-to-provider-accepted p99 ms | generator send lag p99 ms |\n|---|---:|---:|---:|---:|---:|---:|\n");
        for (int i = 0; i < systems.size(); i++) {
            String key = systems.get(i).key();
            md.append("| ")
                    .append(systems.get(i).label())
                    .append(" | ")
                    .append(sustained.get(i).text());
            for (ToDoubleFunction<OpenStep> metric : List.<ToDoubleFunction<OpenStep>>of(
                    OpenStep::acceptP50Ms,
                    OpenStep::acceptP99Ms,
                    OpenStep::e2eP50Ms,
                    OpenStep::e2eP99Ms,
                    OpenStep::sendLagP99Ms)) {
                md.append(" | ").append(OpenStep.ms(medianAt(key, common, metric)));
            }
            md.append(" |\n");
        }
        md.append("\nWhere each ramp ended:\n\n");
        for (SystemUnderTest system : systems) {
            for (int r = 1; r <= s.repeats(); r++) {
                List<OpenStep> ramp = ramp(system.key(), r);
                if (ramp.isEmpty()) {
                    continue;
                }
                Sustained one = sustained(ramp, s.rates().size());
                md.append(String.format(
                        Locale.ROOT,
                        "- %s, repeat %d: sustained %s msg/s; %s%n",
                        system.label(),
                        r,
                        one.text(),
                        one.why()));
            }
            if (repeatsAt(system.key(), common) < s.repeats()) {
                md.append(String.format(
                        Locale.ROOT,
                        "- (%s ran %.0f msg/s in %d of %d repeats)%n",
                        system.label(),
                        common,
                        repeatsAt(system.key(), common),
                        s.repeats()));
            }
        }

        md.append("\n### Open-loop targets\n\n");
        if (systems.size() > 1 && systems.getFirst() instanceof SystemUnderTest.Sendlog) {
            for (int i = 1; i < systems.size(); i++) {
                double needed = systems.get(i) instanceof SystemUnderTest.MutableOutbox
                        ? TARGET_OVER_MUTABLE
                        : TARGET_OVER_PEER;
                md.append(target(systems.get(i).label(), sustained.getFirst(), sustained.get(i), needed))
                        .append('\n');
            }
        } else {
            md.append("sendlog and at least one alternative must run for the targets.\n");
        }
        md.append("\n![accept-to-provider-accepted p99 against the offered rate](")
                .append(images)
                .append("/open-latency.png)\n");
        return md.toString();
    }

    String stepsCsv() {
        StringBuilder csv = new StringBuilder(OpenStep.CSV_HEADER).append('\n');
        steps.forEach(step -> csv.append(step.csv()).append('\n'));
        return csv.toString();
    }

    /** The accept-to-provider-accepted p99 (median of the repeats) against the offered rate, per system. */
    void chart(Path folder) throws IOException {
        Files.createDirectories(folder);
        XYChart chart = new XYChartBuilder()
                .width(900)
                .height(540)
                .title("Open loop: accept-to-provider-accepted p99 against the offered rate (median of repeats)")
                .xAxisTitle("offered msg/s")
                .yAxisTitle("milliseconds (log scale)")
                .build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setXAxisDecimalPattern("#");
        for (int i = 0; i < systems.size(); i++) {
            List<Double> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            for (int rate : settings.rates()) {
                double y = medianAt(systems.get(i).key(), rate, OpenStep::e2eP99Ms);
                if (Double.isFinite(y) && y > 0) {
                    xs.add((double) rate);
                    ys.add(y);
                }
            }
            if (xs.isEmpty()) {
                continue;
            }
            XYSeries series = chart.addSeries(
                    systems.get(i).label(),
                    xs.stream().mapToDouble(Double::doubleValue).toArray(),
                    ys.stream().mapToDouble(Double::doubleValue).toArray());
            series.setLineColor(COLORS[i % COLORS.length]);
            series.setMarkerColor(COLORS[i % COLORS.length]);
            series.setMarker(SeriesMarkers.CIRCLE);
        }
        double[] x = settings.rates().stream().mapToDouble(Integer::doubleValue).toArray();
        double[] limit = new double[x.length];
        java.util.Arrays.fill(limit, settings.p99LimitMs());
        XYSeries line = chart.addSeries("p99 limit", x, limit);
        line.setLineColor(Color.GRAY);
        line.setMarker(SeriesMarkers.NONE);
        BitmapEncoder.saveBitmap(chart, folder.resolve("open-latency.png").toString(), BitmapEncoder.BitmapFormat.PNG);
    }
}
