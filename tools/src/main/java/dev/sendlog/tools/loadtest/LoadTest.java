package dev.sendlog.tools.loadtest;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import net.sourceforge.argparse4j.inf.Namespace;

/** The accept benchmark: every concurrency level against every target, alternating targets per cell. */
public final class LoadTest {
    private final Map<String, String> targets;
    private final String key;
    private final List<Integer> concurrency;
    private final int batchSize;
    private final Duration duration;
    private final Duration warmup;
    private final Duration jitWarmup;

    LoadTest(
            Map<String, String> targets,
            String key,
            List<Integer> concurrency,
            int batchSize,
            Duration duration,
            Duration warmup,
            Duration jitWarmup) {
        this.targets = targets;
        this.key = key;
        this.concurrency = concurrency;
        this.batchSize = batchSize;
        this.duration = duration;
        this.warmup = warmup;
        this.jitWarmup = jitWarmup;
    }

    /** End-to-end mode: one target, its admin URL, a number of messages, after a warm-up run (a tenth unless --warmup-messages). */
    public static void endToEnd(Namespace ns, PrintStream out) throws Exception {
        String target = ns.<String>getList("target").getFirst();
        int eq = target.indexOf('=');
        String label = target.substring(0, eq);
        String admin = ns.getString("admin");
        String callbackAdmin = ns.getString("callback_admin");
        E2eLoad load = new E2eLoad(
                target.substring(eq + 1), admin, callbackAdmin != null ? callbackAdmin : admin, ns.getString("key"));
        int messages = ns.getInt("messages");
        Integer warmup = ns.getInt("warmup_messages");
        load.run(label + " warm-up", warmup != null ? warmup : Math.max(1000, messages / 10), Duration.ofMinutes(5));
        E2eLoad.print(load.run(label, messages, Duration.ofMinutes(10)), out);
    }

    public static LoadTest fromArguments(Namespace ns) {
        Map<String, String> targets = new LinkedHashMap<>();
        for (String t : ns.<String>getList("target")) {
            int eq = t.indexOf('=');
            if (eq < 1) {
                throw new IllegalArgumentException("--target must be label=baseUrl, was " + t);
            }
            targets.put(t.substring(0, eq), t.substring(eq + 1).replaceAll("/+$", ""));
        }
        List<Integer> concurrency = Arrays.stream(ns.getString("concurrency").split(","))
                .map(String::trim)
                .map(Integer::parseInt)
                .toList();
        return new LoadTest(
                targets,
                ns.getString("key"),
                concurrency,
                ns.getInt("batch"),
                Duration.ofSeconds(ns.getInt("seconds")),
                Duration.ofSeconds(ns.getInt("warmup_seconds")),
                Duration.ofSeconds(ns.getInt("jit_warmup_seconds")));
    }

    public List<AcceptLoad.Result> run(PrintStream out) throws InterruptedException {
        List<AcceptLoad.Result> results = new ArrayList<>();
        int most = concurrency.stream().mapToInt(Integer::intValue).max().orElse(1);
        for (Map.Entry<String, String> target : targets.entrySet()) {
            // Until the JIT has compiled the hot paths, a JVM measures its compiler (40% of a core here).
            out.printf(
                    Locale.ROOT,
                    "warming up %s for %d s at %d clients...%n",
                    target.getKey(),
                    jitWarmup.toSeconds(),
                    most);
            new AcceptLoad(target.getValue(), key).run(target.getKey(), most, batchSize, Duration.ZERO, jitWarmup);
        }
        out.println("| target | request | clients | accepted msg/s | p50 ms | p99 ms | max ms | errors |");
        out.println("|---|---|---:|---:|---:|---:|---:|---:|");
        for (int c : concurrency) {
            for (Map.Entry<String, String> target : targets.entrySet()) {
                AcceptLoad.Result r =
                        new AcceptLoad(target.getValue(), key).run(target.getKey(), c, batchSize, warmup, duration);
                results.add(r);
                out.printf(
                        Locale.ROOT,
                        "| %s | %s | %d | %.0f | %.1f | %.1f | %.1f | %d |%n",
                        r.target(),
                        r.scenario(),
                        r.concurrency(),
                        r.messagesPerSecond(),
                        r.latency().p50Ms(),
                        r.latency().p99Ms(),
                        r.latency().maxMs(),
                        r.errors());
                out.flush();
            }
        }
        if (targets.size() > 1) {
            String first = targets.keySet().iterator().next();
            out.println();
            for (int c : concurrency) {
                double base = results.stream()
                        .filter(r -> r.concurrency() == c && r.target().equals(first))
                        .mapToDouble(AcceptLoad.Result::messagesPerSecond)
                        .findFirst()
                        .orElse(0);
                for (AcceptLoad.Result r : results) {
                    if (r.concurrency() == c && !r.target().equals(first) && r.messagesPerSecond() > 0) {
                        out.printf(
                                Locale.ROOT,
                                "clients %d: %s / %s = %.2fx%n",
                                c,
                                first,
                                r.target(),
                                base / r.messagesPerSecond());
                    }
                }
            }
        }
        return results;
    }
}
