package dev.sendlog.bench.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One step of an open-loop ramp: one system offered one rate for a while. Latencies in ms, all from each request's
 * scheduled time: {@code accept} until its 202, {@code e2e} (accept-to-provider-accepted) until the simulator
 * recorded the system's submit of it; a message the simulator had not recorded when the harness stopped waiting
 * counts as infinitely late ({@code e2eP99Ms} then may be infinite).
 */
record OpenStep(
        String system,
        int repeat,
        int step,
        double offeredPerSecond,
        double seconds,
        int scheduled,
        double achievedPerSecond,
        double sendLagP99Ms,
        int waitedForConnection,
        int peakConnections,
        int accepted,
        int errors,
        int unanswered,
        int delivered,
        long duplicates,
        double acceptP50Ms,
        double acceptP99Ms,
        double e2eP50Ms,
        double e2eP99Ms,
        Verdict verdict) {

    /** Whether the system sustained the step, and if not, why; {@code GENERATOR_BEHIND} says nothing of the system. */
    enum Verdict {
        PASSED("passed"),
        GENERATOR_BEHIND("the generator fell behind"),
        ERRORS("refused or failed requests"),
        P99("accept-to-provider-accepted p99 over the limit");

        final String text;

        Verdict(String text) {
            this.text = text;
        }
    }

    /** The generator must send at least this share of the offered rate for a step to judge the system. */
    static final double GENERATOR_TOLERANCE = 0.99;

    static final String CSV_HEADER = "system,repeat,step,offered_per_s,seconds,scheduled,generator_sent_per_s,"
            + "generator_behind,send_lag_p99_ms,waited_for_connection,peak_connections,accepted,errors,unanswered,"
            + "delivered,duplicates,accept_p50_ms,accept_p99_ms,e2e_p50_ms,e2e_p99_ms,verdict";

    boolean passed() {
        return verdict == Verdict.PASSED;
    }

    /** The generator sent less than 99% of the offered rate without the system holding all its connections. */
    static boolean generatorBehind(double offeredPerSecond, double achievedPerSecond, int waitedForConnection) {
        return waitedForConnection == 0 && achievedPerSecond < GENERATOR_TOLERANCE * offeredPerSecond;
    }

    /**
     * The verdict, in this order: the generator fell behind (the step judges nothing); any request refused, failed
     * or unanswered, or none accepted; the accept-to-provider-accepted p99 above {@code p99LimitMs}; else passed.
     */
    static Verdict judge(
            boolean generatorBehind, int accepted, int errors, int unanswered, double e2eP99Ms, long p99LimitMs) {
        if (generatorBehind) {
            return Verdict.GENERATOR_BEHIND;
        }
        if (errors > 0 || unanswered > 0 || accepted == 0) {
            return Verdict.ERRORS;
        }
        return e2eP99Ms > p99LimitMs ? Verdict.P99 : Verdict.PASSED;
    }

    /** A step's figures from what the generator recorded and the simulator's records (reference to epoch us). */
    static OpenStep of(
            String system,
            int repeat,
            int step,
            double seconds,
            OpenLoopGenerator.Offered offered,
            Map<String, Long> recordedAt,
            long duplicates,
            long p99LimitMs) {
        List<Long> accept = new ArrayList<>();
        List<Long> e2e = new ArrayList<>();
        int delivered = 0;
        for (int i = 0; i < offered.scheduled(); i++) {
            String id = offered.ids()[i];
            if (id == null) {
                continue;
            }
            accept.add(offered.answerNanos()[i]);
            Long at = recordedAt.get(id);
            if (at == null) {
                e2e.add(Long.MAX_VALUE);
            } else {
                delivered++;
                e2e.add(at - offered.scheduledEpochMicros()[i]);
            }
        }
        long[] acceptNanos = accept.stream().mapToLong(Long::longValue).toArray();
        long[] e2eMicros = e2e.stream().mapToLong(Long::longValue).toArray();
        double achieved = offered.achievedPerSecond();
        double e2eP99 = microsToMs(e2eMicros, 0.99);
        boolean behind = generatorBehind(offered.perSecond(), achieved, offered.waitedForConnection());
        return new OpenStep(
                system,
                repeat,
                step,
                offered.perSecond(),
                seconds,
                offered.scheduled(),
                achieved,
                offered.sendLagP99Ms(),
                offered.waitedForConnection(),
                offered.peakConnections(),
                acceptNanos.length,
                offered.errors(),
                offered.unanswered(),
                delivered,
                duplicates,
                acceptNanos.length == 0 ? Double.NaN : Stats.percentile(acceptNanos, 0.50) / 1e6,
                acceptNanos.length == 0 ? Double.NaN : Stats.percentile(acceptNanos, 0.99) / 1e6,
                microsToMs(e2eMicros, 0.50),
                e2eP99,
                judge(behind, acceptNanos.length, offered.errors(), offered.unanswered(), e2eP99, p99LimitMs));
    }

    /** A percentile in ms; {@code Long.MAX_VALUE} (not recorded) becomes infinity; NaN for no values. */
    private static double microsToMs(long[] micros, double q) {
        if (micros.length == 0) {
            return Double.NaN;
        }
        long p = Stats.percentile(micros, q);
        return p == Long.MAX_VALUE ? Double.POSITIVE_INFINITY : p / 1e3;
    }

    String csv() {
        return String.format(
                Locale.ROOT,
                "%s,%d,%d,%.0f,%.0f,%d,%.1f,%s,%.2f,%d,%d,%d,%d,%d,%d,%d,%.2f,%.2f,%.1f,%.1f,%s",
                system,
                repeat,
                step,
                offeredPerSecond,
                seconds,
                scheduled,
                achievedPerSecond,
                verdict == Verdict.GENERATOR_BEHIND,
                sendLagP99Ms,
                waitedForConnection,
                peakConnections,
                accepted,
                errors,
                unanswered,
                delivered,
                duplicates,
                acceptP50Ms,
                acceptP99Ms,
                e2eP50Ms,
                e2eP99Ms,
                verdict.name().toLowerCase(Locale.ROOT));
    }

    /** One line for the progress log. */
    String line() {
        return String.format(
                Locale.ROOT,
                "%.0f msg/s for %.0f s: generator sent %.1f/s (%+.2f%%, send lag p99 %.1f ms%s)%s;"
                        + " %d of %d accepted, %d errors, %d unanswered; accept p50/p99 %.1f/%.1f ms;"
                        + " accept-to-provider-accepted p50/p99 %s/%s ms, %d delivered, %d duplicates; peak %d connections: %s",
                offeredPerSecond,
                seconds,
                achievedPerSecond,
                100 * (achievedPerSecond / offeredPerSecond - 1),
                sendLagP99Ms,
                waitedForConnection > 0 ? ", " + waitedForConnection + " waited for a connection" : "",
                verdict == Verdict.GENERATOR_BEHIND ? " GENERATOR BEHIND" : "",
                accepted,
                scheduled,
                errors,
                unanswered,
                acceptP50Ms,
                acceptP99Ms,
                ms(e2eP50Ms),
                ms(e2eP99Ms),
                delivered,
                duplicates,
                peakConnections,
                verdict.text);
    }

    static String ms(double value) {
        if (Double.isNaN(value)) {
            return "n/a";
        }
        return Double.isInfinite(value) ? "∞" : String.format(Locale.ROOT, "%.1f", value);
    }
}
