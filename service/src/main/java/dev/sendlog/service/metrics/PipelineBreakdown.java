package dev.sendlog.service.metrics;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Snapshot;
import com.codahale.metrics.Timer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The timing breakdown of the last minute per stage, in pipeline order, so the wall is seen at a glance: the stage
 * with the largest total time is where the messages wait. Stage timers keep exactly the last minute.
 */
public final class PipelineBreakdown {
    /** Stages in the order a message meets them. */
    public static final List<String> STAGES = List.of(
            "accept.commit",
            "poller.claim",
            "poller.publish",
            "poller.append",
            "poller.publish.round.trip",
            "poller.round",
            "send.queue.wait",
            "send.claim",
            "send.check",
            "send.provider",
            "send.result",
            "append.commit",
            "send.accepted.to.sent",
            "inbox.commit",
            "callbacks.batch",
            "callbacks.record.commit",
            "projector.batch",
            "timers.round");

    private static final List<String> COUNTERS = List.of(
            "messages.sent",
            "messages.delivered",
            "messages.undelivered",
            "messages.rejected",
            "messages.dead",
            "messages.unknown",
            "send.attempts.failed",
            "send.stale.jobs",
            "callbacks.stored",
            "callbacks.appended",
            "callbacks.duplicates",
            "callbacks.held.for.late.match",
            "callbacks.signature.rejected",
            "callbacks.intake.busy",
            "poller.published",
            "poller.skipped.already.handled",
            "ledger.duplicates.refused");

    /** One stage over the last minute; times in milliseconds. */
    public record Stage(String name, long count, double meanMs, double p50Ms, double p99Ms, double totalMs) {}

    public record Breakdown(int windowSeconds, List<Stage> stages, Map<String, Long> counters) {}

    private PipelineBreakdown() {}

    public static Breakdown of(MetricRegistry metrics) {
        List<Stage> stages = new ArrayList<>();
        Map<String, Timer> timers = metrics.getTimers();
        for (String name : STAGES) {
            Timer t = timers.get(name);
            if (t == null) {
                continue;
            }
            Snapshot s = t.getSnapshot();
            long count = s.size();
            double mean = s.getMean() / 1e6;
            stages.add(new Stage(name, count, mean, s.getMedian() / 1e6, s.get99thPercentile() / 1e6, count * mean));
        }
        Map<String, Long> counters = new LinkedHashMap<>();
        Map<String, Counter> all = metrics.getCounters();
        for (String name : COUNTERS) {
            Counter c = all.get(name);
            if (c != null) {
                counters.put(name, c.getCount());
            }
        }
        all.forEach((name, c) -> {
            if (name.startsWith("callbacks.parked.")) {
                counters.put(name, c.getCount());
            }
        });
        return new Breakdown(Metrics.WINDOW_SECONDS, stages, counters);
    }
}
