package dev.sendlog.tools.loadtest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.sendlog.tools.chaos.ServiceProcess;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The webhook isolation benchmark of issue 27: two tenants send at the same rate with a status webhook each for
 * ACCEPTED. In the first run both endpoints answer at once; in the second, the other tenant's endpoint never answers
 * (every attempt waits the whole 10 s timeout). Prints the healthy tenant's delivery latency (the event's time to the
 * receiver's receipt) in both runs and their ratio: the target is the second run's p99 within 2 times the first's.
 * Runs on a PostgreSQL, Redis and simulator of its own, the receiver in this process.
 */
public final class WebhookIsolationBench {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String HEALTHY_KEY = "demo-client-key";
    private static final String OTHER_KEY = "bench-other-client-key";
    private static final String ADMIN_KEY = "demo-admin-key";

    private final String jar;
    private final Path dir;
    private final int rate;
    private final int seconds;
    private final HttpClient http = HttpClient.newHttpClient();
    private long recipients = 4918000000000L;

    public WebhookIsolationBench(String jar, Path dir, int rate, int seconds) {
        this.jar = jar;
        this.dir = dir;
        this.rate = rate;
        this.seconds = seconds;
    }

    /** The receiver: {@code /healthy/*} and {@code /fine/*} answer at once, {@code /dead/*} not within the timeout. */
    private static final class Receiver implements AutoCloseable {
        final HttpServer server;
        /** Per event id (with its path): when it first arrived here, and when its event happened (epoch ms). */
        final Map<String, long[]> received = new ConcurrentHashMap<>();

        final AtomicInteger deadInFlight = new AtomicInteger();
        final AtomicInteger deadMaxInFlight = new AtomicInteger();
        final AtomicInteger deadRequests = new AtomicInteger();
        final CountDownLatch closing = new CountDownLatch(1);

        Receiver() throws IOException {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1000);
            server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
            server.createContext("/", this::handle);
            server.start();
        }

        String url(String path) {
            return "http://127.0.0.1:" + server.getAddress().getPort() + path;
        }

        private void handle(HttpExchange exchange) throws IOException {
            long now = System.currentTimeMillis();
            String path = exchange.getRequestURI().getPath();
            byte[] body = exchange.getRequestBody().readAllBytes();
            try {
                if (path.startsWith("/dead")) {
                    deadRequests.incrementAndGet();
                    deadMaxInFlight.accumulateAndGet(deadInFlight.incrementAndGet(), Math::max);
                    try {
                        // Answers nothing for 11 s, then closes: the worker's 10 s timeout ends each attempt first, so
                        // the requests counted in flight here are the ones the worker still waits for.
                        closing.await(11, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } finally {
                        deadInFlight.decrementAndGet();
                    }
                    return;
                }
                if (path.startsWith("/healthy")) {
                    JsonNode json = JSON.readTree(body);
                    String eventId = path + "|" + json.get("eventId").asText();
                    received.putIfAbsent(eventId, new long[] {
                        now, Instant.parse(json.get("at").asText()).toEpochMilli()
                    });
                }
                exchange.sendResponseHeaders(204, -1);
            } finally {
                exchange.close();
            }
        }

        /** Delivery latencies in ms of the events received under {@code path}. */
        List<Double> latencies(String path) {
            List<Double> out = new ArrayList<>();
            received.forEach((id, times) -> {
                if (id.startsWith(path + "|")) {
                    out.add((double) (times[0] - times[1]));
                }
            });
            return out;
        }

        @Override
        public void close() {
            closing.countDown();
            server.stop(0);
        }
    }

    public void run(PrintStream out) throws Exception {
        Files.createDirectories(dir);
        Path config = dir.resolve("config.yml");
        // config.yml with a second client key (tenant "other"): the two tenants need keys of their own.
        String shipped = Files.readString(Path.of("config.yml"));
        String demoAdmin = "    - {key: demo-admin-key, tenant: demo, role: admin, demo: true}";
        if (!shipped.contains(demoAdmin)) {
            throw new IllegalStateException("config.yml no longer lists the demo admin key as this benchmark expects");
        }
        Files.writeString(
                config,
                shipped.replace(
                        demoAdmin,
                        demoAdmin + "\n    - {key: " + OTHER_KEY + ", tenant: other, role: client, demo: true}"));
        try (BenchServers servers = BenchServers.start(jar, dir, Map.of("max_connections", "200"), 5);
                Receiver receiver = new Receiver()) {
            Map<String, String> env = servers.environment("webhooks-" + System.nanoTime() + ":", "polling");
            servers.freshDatabase(env);
            int apiPort = BenchServers.port();
            int adminPort = BenchServers.port();
            ServiceProcess service = servers.process(
                    "webhooks",
                    "server",
                    apiPort,
                    adminPort,
                    env,
                    List.of("-Xmx1g", "-Ddw.webhooks.allowPrivateTargets=true"),
                    config);
            try {
                if (!service.awaitReady(Duration.ofMinutes(3))) {
                    throw new IllegalStateException("the service did not start; see its log in " + dir);
                }
                String api = "http://127.0.0.1:" + apiPort;
                out.printf(
                        Locale.ROOT,
                        "## Webhook isolation: %d cores, two tenants at %d msg/s each for %d s, a webhook "
                                + "for ACCEPTED each (%s)%n",
                        Runtime.getRuntime().availableProcessors(),
                        rate,
                        seconds,
                        Instant.now());
                register(api, "demo", receiver.url("/healthy/warm"));
                register(api, "other", receiver.url("/fine/warm"));
                int warm = Math.max(rate, 50);
                paced(api, 10, warm);
                // Every warm-up delivery made before the measured runs: one still owed when the URL changes goes to the
                // new URL (a changed URL applies to deliveries still owed) and would count there.
                awaitAll(receiver, "/healthy/warm", 10L * warm);

                register(api, "demo", receiver.url("/healthy/alone"));
                register(api, "other", receiver.url("/fine/alone"));
                paced(api, seconds, rate);
                awaitAll(receiver, "/healthy/alone", (long) rate * seconds);

                register(api, "demo", receiver.url("/healthy/beside-dead"));
                register(api, "other", receiver.url("/dead/beside"));
                paced(api, seconds, rate);
                awaitAll(receiver, "/healthy/beside-dead", (long) rate * seconds);

                Latency alone = Latency.of(receiver.latencies("/healthy/alone"));
                Latency beside = Latency.of(receiver.latencies("/healthy/beside-dead"));
                out.println();
                out.println("| healthy tenant's deliveries | received | event -> received p50 ms | p99 ms | max ms |");
                out.println("|---|---:|---:|---:|---:|");
                row(out, "the other tenant's endpoint answering at once", alone);
                row(out, "the other tenant's endpoint never answering (10 s timeouts)", beside);
                out.printf(
                        Locale.ROOT,
                        "%nthe dead endpoint: %d requests, at most %d in flight at once (webhooks."
                                + "perEndpointConcurrency 4 by default)%n",
                        receiver.deadRequests.get(),
                        receiver.deadMaxInFlight.get());
                out.printf(
                        Locale.ROOT,
                        "healthy p99 beside the dead endpoint / alone: %.2fx (target at most 2x)%n",
                        beside.p99() / alone.p99());
            } finally {
                service.stop();
            }
        }
    }

    private void register(String api, String tenant, String url) throws IOException, InterruptedException {
        String body = "{\"url\":\"" + url + "\",\"events\":[\"ACCEPTED\"]}";
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(api + "/v1/webhook?tenant=" + tenant))
                        .header("Authorization", "Bearer " + ADMIN_KEY)
                        .header("Content-Type", "application/json")
                        .PUT(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException(
                    "registering " + url + " for " + tenant + " answered " + r.statusCode() + ": " + r.body());
        }
    }

    /** Both tenants' messages at {@code perSecond} each, evenly spaced, for {@code forSeconds}. */
    private void paced(String api, int forSeconds, int perSecond) throws Exception {
        long intervalNanos = 1_000_000_000L / perSecond;
        long start = System.nanoTime();
        List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (long i = 0; i < (long) forSeconds * perSecond; i++) {
                long due = start + i * intervalNanos;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait); // the schedule of an open-loop load
                }
                String healthy = "{\"to\":\"+" + (recipients++) + "\",\"body\":\"isolation\"}";
                String other = "{\"to\":\"+" + (recipients++) + "\",\"body\":\"isolation\"}";
                sent.add(pool.submit(() -> submit(api, HEALTHY_KEY, healthy)));
                sent.add(pool.submit(() -> submit(api, OTHER_KEY, other)));
            }
            for (var f : sent) {
                f.get();
            }
        }
    }

    private Void submit(String api, String key, String body) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(api + "/v1/messages"))
                        .header("Authorization", "Bearer " + key)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 202) {
            throw new IllegalStateException("a submit answered " + r.statusCode() + ": " + r.body());
        }
        return null;
    }

    private static void awaitAll(Receiver receiver, String path, long expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (receiver.latencies(path).size() < expected && System.nanoTime() < deadline) {
            Thread.sleep(100); // polling the receiver's count: nothing to await but the deliveries themselves
        }
    }

    record Latency(int received, double p50, double p99, double max) {
        static Latency of(List<Double> values) {
            List<Double> sorted = new ArrayList<>(values);
            sorted.sort(Double::compare);
            if (sorted.isEmpty()) {
                return new Latency(0, Double.NaN, Double.NaN, Double.NaN);
            }
            return new Latency(sorted.size(), at(sorted, 0.50), at(sorted, 0.99), sorted.getLast());
        }

        private static double at(List<Double> sorted, double q) {
            return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(q * sorted.size()) - 1));
        }
    }

    private static void row(PrintStream out, String label, Latency l) {
        out.printf(Locale.ROOT, "| %s | %d | %.0f | %.0f | %.0f |%n", label, l.received(), l.p50(), l.p99(), l.max());
    }
}
