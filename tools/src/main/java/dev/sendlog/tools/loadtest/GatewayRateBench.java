package dev.sendlog.tools.loadtest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sendlog.tools.chaos.ServiceProcess;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The gateway rate benchmark of issue 29: two send-worker processes share one gateway whose provider (the simulator)
 * answers 429 above {@code rate} submits per second. A backlog larger than the run keeps both workers busy; the
 * simulator's own counters over a measured window give the submits it accepted per second (target: within 5% of its
 * rate) and the share of submits it refused with 429 (target: at most 1%). Three cases, one after another on the same
 * backlog, each with both send-worker processes restarted: the gateway's {@code maxPerSecond} set to the provider's
 * rate (the contract known), set 1.5 times above it (the contract misread: the 429s must slow it), and not set at all
 * (every 429 answered by a pause of its Retry-After). Runs on a PostgreSQL, Redis and simulator of its own; the API and
 * the poller run in processes of their own too.
 */
public final class GatewayRateBench {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CLIENT_KEY = "demo-client-key";
    private static final int BATCH = 500;
    private static final int WARM_SECONDS = 10;
    /** JVM options for the send-worker processes beside the case's (sendlog.bench.rate.workerOptions, space-separated). */
    private static final List<String> EXTRA_OPTIONS =
            List.of(System.getProperty("sendlog.bench.rate.workerOptions", "").split(" ")).stream()
                    .filter(o -> !o.isBlank())
                    .toList();

    private final String jar;
    private final Path dir;
    private final int rate;
    private final int seconds;
    private final HttpClient http = HttpClient.newHttpClient();

    public GatewayRateBench(String jar, Path dir, int rate, int seconds) {
        this.jar = jar;
        this.dir = dir;
        this.rate = rate;
        this.seconds = seconds;
    }

    /** One case: the gateway's configured rate (0: none) and what the simulator counted over the window. */
    private record Case(String label, int gatewayRate, List<String> workerOptions) {
        Case(String label, int gatewayRate) {
            this(label, gatewayRate, List.of());
        }

        /** Names its processes' logs apart from another case's. */
        String tag() {
            return gatewayRate + (workerOptions.isEmpty() ? "" : "-" + workerOptions.size() + "opt");
        }
    }

    private record Window(double seconds, long submits, long accepted, long throttled) {
        double acceptedPerSecond() {
            return accepted / seconds;
        }

        double refusedShare() {
            return submits == 0 ? 0 : (double) throttled / submits;
        }
    }

    public void run(PrintStream out) throws Exception {
        Files.createDirectories(dir);
        List<Case> cases = List.of(
                new Case("maxPerSecond = the provider's rate", rate),
                // Side by side in the same run: the shared bucket without batching (each take its own swap).
                new Case(
                        "the same, each take its own Redis swap",
                        rate,
                        List.of("-D" + dev.sendlog.service.send.provider.GatewayRate.UNBATCHED_PROPERTY + "=true")),
                new Case("maxPerSecond = 1.5 x the provider's rate", rate * 3 / 2),
                new Case("no maxPerSecond (429s answered by pauses)", 0));
        try (BenchServers servers = BenchServers.start(jar, dir, Map.of("max_connections", "200"), 5)) {
            String simulator = servers.simulatorUrl();
            servers.awaitSimulator();
            setProviderRate(simulator, rate);
            out.printf(
                    Locale.ROOT,
                    "## Gateway rate: %d cores, two send-worker processes, a provider taking %d submits "
                            + "a second (429 above), %d s measured per case after %d s (%s)%n%n",
                    Runtime.getRuntime().availableProcessors(),
                    rate,
                    seconds,
                    WARM_SECONDS,
                    Instant.now());
            out.println("| case | accepted submits/s | / provider's rate | submits refused (429) | refused share |");
            out.println("|---|---:|---:|---:|---:|");
            List<Window> windows = new ArrayList<>();
            for (Case c : cases) {
                Window w = runCase(servers, simulator, c);
                windows.add(w);
                out.printf(
                        Locale.ROOT,
                        "| %s | %.1f | %.3f | %d of %d | %.2f%% |%n",
                        c.label(),
                        w.acceptedPerSecond(),
                        w.acceptedPerSecond() / rate,
                        w.throttled(),
                        w.submits(),
                        100 * w.refusedShare());
            }
            Window known = windows.getFirst();
            double off = Math.abs(known.acceptedPerSecond() / rate - 1);
            out.printf(
                    Locale.ROOT,
                    "%nwith the rate configured: accepted %.1f%% off the provider's rate (target at most "
                            + "5%%: %s), %.2f%% of submits refused (target at most 1%%: %s)%n",
                    100 * off,
                    off <= 0.05 ? "met" : "NOT met",
                    100 * known.refusedShare(),
                    known.refusedShare() <= 0.01 ? "met" : "NOT met");
        }
    }

    /**
     * One case on a database and key prefix of its own: the API and the poller, two send-worker processes with the
     * case's gateway rate, then a backlog larger than the case, measured after a warm-up.
     */
    private Window runCase(BenchServers servers, String simulator, Case c) throws Exception {
        Map<String, String> env = servers.environment("rate-" + System.nanoTime() + ":", "polling");
        servers.freshDatabase(env);
        int apiPort = BenchServers.port();
        String tag = "-" + c.tag();
        List<ServiceProcess> fixed = new ArrayList<>();
        try {
            fixed.add(servers.process("api" + tag, "api", apiPort, BenchServers.port(), env, List.of("-Xmx512m")));
            fixed.add(servers.process(
                    "poller" + tag, "poller", BenchServers.port(), BenchServers.port(), env, List.of("-Xmx512m")));
            for (ServiceProcess p : fixed) {
                if (!p.awaitReady(Duration.ofMinutes(3))) {
                    throw new IllegalStateException(p.name() + " did not start; see its log in " + dir);
                }
            }
            return measure(servers, env, simulator, c, "http://127.0.0.1:" + apiPort);
        } finally {
            for (ServiceProcess p : fixed) {
                p.stop();
            }
        }
    }

    /** Starts two send-worker processes with the case's gateway rate, submits the backlog, measures the window, stops them. */
    private Window measure(BenchServers servers, Map<String, String> env, String simulator, Case c, String api)
            throws Exception {
        List<String> options = new ArrayList<>(List.of("-Xmx512m"));
        if (c.gatewayRate() > 0) {
            options.add("-Ddw.gateways.sim.maxPerSecond=" + c.gatewayRate());
        }
        options.addAll(c.workerOptions());
        options.addAll(EXTRA_OPTIONS);
        List<ServiceProcess> workers = new ArrayList<>();
        List<Integer> adminPorts = new ArrayList<>();
        try {
            for (int i = 1; i <= 2; i++) {
                // A port found free can be taken before the process binds it (an outgoing connection's): a process that
                // did not start is started again on other ports, at most three times.
                for (int tries = 1; ; tries++) {
                    int adminPort = BenchServers.port();
                    ServiceProcess w = servers.process(
                            "send-worker-" + i + "-" + c.tag() + "-" + tries,
                            "send-worker",
                            BenchServers.port(),
                            adminPort,
                            env,
                            options);
                    workers.add(w);
                    if (w.awaitReady(Duration.ofMinutes(3))) {
                        adminPorts.add(adminPort);
                        break;
                    }
                    if (tries == 3) {
                        throw new IllegalStateException(w.name() + " did not start; see its log in " + dir);
                    }
                }
            }
            // The backlog only once both workers are up: one process starting late on this 2-core machine (52 s in a
            // run) would otherwise drain it alone before the window. Enough for the warm-up and the window at the
            // provider's rate and a margin: the stream never drains.
            submitBacklog(api, (long) rate * (WARM_SECONDS + seconds + 20));
            TimeUnit.SECONDS.sleep(WARM_SECONDS); // the unmeasured start of each case: a fixed span of the load itself
            JsonNode before = stats(simulator);
            Map<String, Long> redisBefore = servers.redisCalls();
            long start = System.nanoTime();
            TimeUnit.SECONDS.sleep(seconds); // the measured window: the simulator counts what happens in it
            JsonNode after = stats(simulator);
            Map<String, Long> redisAfter = servers.redisCalls();
            double elapsed = (System.nanoTime() - start) / 1e9;
            // What the window cost Redis per accepted submit, by command: the shared rate's swaps beside the stream's.
            long accepted = Math.max(1, delta(before, after, "accepted"));
            StringBuilder redis = new StringBuilder();
            redisAfter.forEach((command, calls) -> {
                long n = calls - redisBefore.getOrDefault(command, 0L);
                if (n >= accepted / 10) {
                    redis.append(String.format(Locale.ROOT, " %s=%.2f", command, (double) n / accepted));
                }
            });
            System.err.println("rate: " + c.label() + ", Redis calls per accepted submit:" + redis);
            for (int i = 0; i < adminPorts.size(); i++) {
                System.err.println(
                        "rate: " + c.label() + ", send-worker-" + (i + 1) + ": " + counters(adminPorts.get(i)));
            }
            return new Window(
                    elapsed,
                    delta(before, after, "submits"),
                    delta(before, after, "accepted"),
                    delta(before, after, "throttled"));
        } finally {
            for (ServiceProcess w : workers) {
                w.stop();
            }
        }
    }

    /** What a worker counted (stderr): how its jobs went, to tell a wall from a rate. */
    private String counters(int adminPort) throws IOException, InterruptedException {
        JsonNode metrics = JSON.readTree(http.send(
                                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/metrics"))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString())
                        .body())
                .path("counters");
        StringBuilder line = new StringBuilder();
        for (String name : List.of(
                "messages.sent",
                "send.throttled",
                "send.jobs.handed.back",
                "send.stale.jobs",
                "gateway.sim.rate.throttles",
                "gateway.sim.rate.waits.too.long",
                "gateway.sim.rate.fallbacks",
                "send.attempts.failed")) {
            line.append(name)
                    .append('=')
                    .append(metrics.path(name).path("count").asLong())
                    .append(' ');
        }
        return line.toString().trim();
    }

    private static long delta(JsonNode before, JsonNode after, String field) {
        return after.path(field).asLong() - before.path(field).asLong();
    }

    private void setProviderRate(String simulator, int perSecond) throws IOException, InterruptedException {
        // GET /v1/config leaves the secrets out; a configuration read, changed and put back keeps them.
        ObjectNode config = (ObjectNode) JSON.readTree(http.send(
                        HttpRequest.newBuilder(URI.create(simulator + "/v1/config"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body());
        config.put("maxPerSecond", perSecond);
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(simulator + "/v1/config"))
                        .header("Content-Type", "application/json")
                        .PUT(HttpRequest.BodyPublishers.ofString(config.toString()))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200 && r.statusCode() != 204) {
            throw new IllegalStateException("the simulator refused its rate: " + r.statusCode() + " " + r.body());
        }
    }

    private JsonNode stats(String simulator) throws IOException, InterruptedException {
        return JSON.readTree(http.send(
                        HttpRequest.newBuilder(URI.create(simulator + "/v1/stats"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body());
    }

    /** The backlog through the batch endpoint, four batches in flight at a time. */
    private void submitBacklog(String api, long messages) throws Exception {
        Semaphore inFlight = new Semaphore(4);
        List<Future<?>> sent = new ArrayList<>();
        long recipient = 4917000000000L;
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (long done = 0; done < messages; done += BATCH) {
                StringBuilder body = new StringBuilder("{\"messages\":[");
                for (int i = 0; i < Math.min(BATCH, messages - done); i++) {
                    body.append(i == 0 ? "" : ",")
                            .append("{\"to\":\"+")
                            .append(recipient++)
                            .append("\",\"body\":\"rate\"}");
                }
                String payload = body.append("]}").toString();
                inFlight.acquire();
                sent.add(pool.submit(() -> {
                    try {
                        HttpResponse<String> r = http.send(
                                HttpRequest.newBuilder(URI.create(api + "/v1/messages/batch"))
                                        .header("Authorization", "Bearer " + CLIENT_KEY)
                                        .header("Content-Type", "application/json")
                                        .POST(HttpRequest.BodyPublishers.ofString(payload, StandardCharsets.UTF_8))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
                        if (r.statusCode() != 202) {
                            throw new IllegalStateException("a batch answered " + r.statusCode() + ": " + r.body());
                        }
                        return null;
                    } finally {
                        inFlight.release();
                    }
                }));
            }
            for (Future<?> f : sent) {
                f.get();
            }
        }
    }
}
