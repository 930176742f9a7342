package dev.sendlog.tools.loadtest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sendlog.tools.cpu.ProcCpu;
import dev.sendlog.tools.http.Http1Connection;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * End-to-end throughput of one running pipeline: submits {@code messages} through the batch endpoint as fast as
 * the API takes them, then waits until the service's {@code messages.sent} counter has grown by as many.
 * Prints the rate from the first submit to the last send, the service's own accepted-to-SENT latency, and the
 * time spent in each stage (from the service's metrics), so the wall can be seen.
 */
final class E2eLoad {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] STAGES = {
        "poller.claim",
        "poller.publish",
        "poller.append",
        "poller.publish.round.trip",
        "send.queue.wait",
        "send.claim",
        "send.check",
        "send.provider",
        "send.result",
        "append.commit",
        "accept.commit",
        "projector.batch",
        "timers.round",
        "callbacks.batch",
        "callbacks.record.commit",
        "inbox.commit"
    };

    private final URI api;
    private final URI admin;
    /** Where the callback intake and workers run: the target itself, or a process of their own. */
    private final URI callbackAdmin;

    private final String authorization;
    private final HttpClient http = HttpClient.newHttpClient();

    E2eLoad(String api, String admin, String callbackAdmin, String key) {
        this.api = URI.create(api);
        this.admin = URI.create(admin);
        this.callbackAdmin = URI.create(callbackAdmin);
        this.authorization = "Bearer " + key;
    }

    record Result(
            String label,
            int messages,
            double seconds,
            double perSecond,
            double p50Ms,
            double p99Ms,
            Map<String, double[]> stages,
            double callbacksPerSecond,
            String callbackIntake,
            String cpu) {}

    private static long callbacksDone(JsonNode m) {
        long parked = 0;
        var names = m.path("counters").fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (name.startsWith("callbacks.parked.")) {
                parked += counter(m, name);
            }
        }
        return counter(m, "callbacks.appended") + counter(m, "callbacks.duplicates") + parked;
    }

    Result run(String label, int messages, Duration timeout) throws IOException, InterruptedException {
        JsonNode before = metrics();
        JsonNode callbacksBefore = callbackMetrics(before);
        long sentBefore = counter(before, "messages.sent");
        long[] machineBefore = ProcCpu.machineBusyAndTotalTicks();
        long start = System.nanoTime();
        accept(messages, 0);
        long deadline = System.nanoTime() + timeout.toNanos();
        JsonNode m;
        long sent;
        do {
            // Reading every metric costs the service CPU: once a second is enough to see the end.
            Thread.sleep(1000);
            m = metrics();
            sent = counter(m, "messages.sent") - sentBefore;
        } while (sent < messages && System.nanoTime() < deadline);
        double seconds = (System.nanoTime() - start) / 1e9;
        String cpu = cpu(before, m, sent, seconds, machineBefore, ProcCpu.machineBusyAndTotalTicks());
        JsonNode callbacks = callbackMetrics(m);
        JsonNode e2e = m.path("timers").path("send.accepted.to.sent");
        Map<String, double[]> stages = new LinkedHashMap<>();
        for (String stage : STAGES) {
            JsonNode t = m.path("timers").path(stage);
            if (!t.isMissingNode()) {
                // Counts of this run only; the mean is the timer's (its window is the last minute).
                double count = t.path("count").asDouble()
                        - before.path("timers").path(stage).path("count").asDouble();
                double meanMs = t.path("mean").asDouble() * 1000;
                stages.put(stage, new double[] {count, meanMs, t.path("p99").asDouble() * 1000, count * meanMs / 1000});
            }
        }
        String intake = String.format(
                Locale.ROOT,
                "callbacks stored %.0f/s, refused busy (503) %.0f/s; callback batches of %.1f"
                        + " on average in %.1f rounds",
                (counter(callbacks, "callbacks.stored") - counter(callbacksBefore, "callbacks.stored")) / seconds,
                (counter(callbacks, "callbacks.intake.busy") - counter(callbacksBefore, "callbacks.intake.busy"))
                        / seconds,
                callbacks
                        .path("histograms")
                        .path("callbacks.batch.size")
                        .path("mean")
                        .asDouble(),
                callbacks
                        .path("histograms")
                        .path("callbacks.batch.rounds")
                        .path("mean")
                        .asDouble());
        return new Result(
                label,
                (int) sent,
                seconds,
                sent / seconds,
                e2e.path("p50").asDouble() * 1000,
                e2e.path("p99").asDouble() * 1000,
                stages,
                (callbacksDone(callbacks) - callbacksDone(callbacksBefore)) / seconds,
                intake,
                cpu);
    }

    /** The service's CPU per message (its process.cpu.seconds gauge), and how busy the whole machine was. */
    private static String cpu(
            JsonNode before, JsonNode after, long sent, double seconds, long[] machineBefore, long[] machineAfter) {
        double serverSeconds = gauge(after, "process.cpu.seconds") - gauge(before, "process.cpu.seconds");
        String line = String.format(
                Locale.ROOT,
                "CPU: the sendlog server %.3f ms per message (%.2f cores)",
                1000 * serverSeconds / Math.max(1, sent),
                serverSeconds / seconds);
        if (machineBefore != null && machineAfter != null && machineAfter[1] > machineBefore[1]) {
            double busy = (double) (machineAfter[0] - machineBefore[0]) / (machineAfter[1] - machineBefore[1]);
            int cores = Runtime.getRuntime().availableProcessors();
            line += String.format(
                    Locale.ROOT,
                    "; the machine %.2f of %d cores busy (load generator, simulator and" + " databases included)",
                    busy * cores,
                    cores);
        }
        return line;
    }

    private static double gauge(JsonNode metrics, String name) {
        return metrics.path("gauges").path(name).path("value").asDouble(Double.NaN);
    }

    /** Submits {@code messages} as fast as the API takes them (batches of 500), numbering recipients from {@code first}. */
    void accept(int messages, long first) throws IOException {
        try (Http1Connection connection = new Http1Connection(api, 30_000)) {
            for (int done = 0; done < messages; ) {
                int size = Math.min(500, messages - done);
                post(connection, first + done, size);
                done += size;
            }
        }
    }

    /**
     * A steady load well below capacity: {@code perSecond} messages a second (fifty requests a second) for
     * {@code length}, then waits (up to {@code drain}) until all are SENT. Returns how many were accepted.
     */
    long paced(int perSecond, Duration length, Duration drain) throws IOException, InterruptedException {
        long sentBefore = counter(metrics(), "messages.sent");
        int batch = Math.max(1, perSecond / 50);
        long intervalNanos = 1_000_000_000L * batch / perSecond;
        long start = System.nanoTime();
        long next = start;
        long accepted = 0;
        try (Http1Connection connection = new Http1Connection(api, 30_000)) {
            while (System.nanoTime() - start < length.toNanos()) {
                post(connection, 1_000_000 + accepted, batch);
                accepted += batch;
                next += intervalNanos;
                long waitNanos = next - System.nanoTime();
                if (waitNanos > 0) {
                    Thread.sleep(Duration.ofNanos(waitNanos)); // pacing: the next request is due then
                }
            }
        }
        long deadline = System.nanoTime() + drain.toNanos();
        while (counter(metrics(), "messages.sent") - sentBefore < accepted && System.nanoTime() < deadline) {
            Thread.sleep(500);
        }
        return accepted;
    }

    private void post(Http1Connection connection, long first, int size) throws IOException {
        StringBuilder body = new StringBuilder("{\"messages\":[");
        for (int i = 0; i < size; i++) {
            long n = first + i;
            body.append(i == 0 ? "" : ",")
                    .append("{\"to\":\"+49152")
                    .append(String.format("%08d", n))
                    .append("\",\"body\":\"end to end ")
                    .append(n)
                    .append("\"}");
        }
        ByteArrayOutputStream answer = new ByteArrayOutputStream();
        int status = connection.post(
                "/v1/messages/batch",
                authorization,
                body.append("]}").toString().getBytes(StandardCharsets.UTF_8),
                answer);
        if (status != 202) {
            throw new IOException("batch refused with " + status + ": " + answer);
        }
    }

    static void print(Result r, PrintStream out) {
        out.printf(
                Locale.ROOT,
                "%n### %s: %d messages sent in %.1f s = %.0f msg/s end to end; accepted->SENT p50 %.0f ms, p99 %.0f ms;"
                        + " callbacks processed meanwhile %.0f/s%n",
                r.label(),
                r.messages(),
                r.seconds(),
                r.perSecond(),
                r.p50Ms(),
                r.p99Ms(),
                r.callbacksPerSecond());
        out.println("| stage | count | mean ms | p99 ms | total s |");
        out.println("|---|---:|---:|---:|---:|");
        r.stages()
                .forEach((name, v) ->
                        out.printf(Locale.ROOT, "| %s | %.0f | %.2f | %.2f | %.1f |%n", name, v[0], v[1], v[2], v[3]));
        out.println(r.cpu());
        if (r.callbacksPerSecond() > 0) {
            out.println(r.callbackIntake());
        }
        double claim = r.stages().getOrDefault("poller.claim", new double[4])[3];
        double publish = r.stages().getOrDefault("poller.publish", new double[4])[3];
        double append = r.stages().getOrDefault("poller.append", new double[4])[3];
        double loop = claim + publish + append;
        if (loop > 0) {
            out.printf(
                    Locale.ROOT,
                    "poller loop: claim %.0f%%, publish %.0f%%, append %.0f%% of its busy time;"
                            + " of its loop's wall time (the run's %.1f s): claim %.1f%%, publish %.1f%%, append %.1f%%%n",
                    100 * claim / loop,
                    100 * publish / loop,
                    100 * append / loop,
                    r.seconds(),
                    100 * claim / r.seconds(),
                    100 * publish / r.seconds(),
                    100 * append / r.seconds());
            double roundTrip = r.stages().getOrDefault("poller.publish.round.trip", new double[4])[3];
            out.printf(
                    Locale.ROOT,
                    "publish in flight (sent until awaited, after the append's statements; the loop waits only"
                            + " for the publish share above): %.1f s, %.1f%% of the wall time%n",
                    roundTrip,
                    100 * roundTrip / r.seconds());
        }
    }

    private JsonNode metrics() throws IOException, InterruptedException {
        return metrics(admin);
    }

    /** The callback process's metrics: the target's own, already read, unless the callbacks run elsewhere. */
    private JsonNode callbackMetrics(JsonNode targetMetrics) throws IOException, InterruptedException {
        return callbackAdmin.equals(admin) ? targetMetrics : metrics(callbackAdmin);
    }

    private JsonNode metrics(URI from) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(from.resolve("/metrics")).GET().build(), HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(r.body());
    }

    private static long counter(JsonNode metrics, String name) {
        return metrics.path("counters").path(name).path("count").asLong();
    }
}
