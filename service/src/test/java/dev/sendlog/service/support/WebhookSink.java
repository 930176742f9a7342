package dev.sendlog.service.support;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A status webhook receiver on loopback (the JDK's HttpServer, a virtual thread per request) whose answers a test
 * scripts per path: a status (with an optional Retry-After), a hang (no answer until released or the server stops), or
 * a cut connection. Records every request and the most requests one path ever had in flight at once.
 */
public final class WebhookSink implements AutoCloseable {
    /** One answer. */
    public sealed interface Answer {}

    public record Status(int code, String retryAfter) implements Answer {}

    /** Holds the request open until {@link #release()} (or the sink closes), answering nothing. */
    public record Hang() implements Answer {}

    /** Answers 200 after {@code millis}. */
    public record Slow(long millis) implements Answer {}

    /** Reads the request, then closes the connection without an answer. */
    public record Cut() implements Answer {}

    public static final Answer OK = new Status(200, null);

    /** A request as received. */
    public record Received(String path, Map<String, List<String>> headers, byte[] body, long receivedAtNanos) {
        public String header(String name) {
            for (Map.Entry<String, List<String>> e : headers.entrySet()) {
                if (e.getKey() != null && e.getKey().equalsIgnoreCase(name)) {
                    return e.getValue().getFirst();
                }
            }
            return null;
        }

        public String text() {
            return new String(body, java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    private final HttpServer server;
    private final Map<String, ConcurrentLinkedQueue<Answer>> scripts = new ConcurrentHashMap<>();
    private final Map<String, Answer> defaults = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> maxInFlight = new ConcurrentHashMap<>();
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private volatile CountDownLatch hanging = new CountDownLatch(1);

    public WebhookSink() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 200);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/", this::handle);
        server.start();
    }

    public String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    /** The answers to the next requests to {@code path}, in order; then {@link #always}'s (200 when unset). */
    public WebhookSink then(String path, Answer... answers) {
        scripts.computeIfAbsent(path, p -> new ConcurrentLinkedQueue<>()).addAll(List.of(answers));
        return this;
    }

    public WebhookSink always(String path, Answer answer) {
        defaults.put(path, answer);
        return this;
    }

    /** Lets every hanging request end (unanswered: the server closes them), and hangs from now on wait again. */
    public void release() {
        CountDownLatch was = hanging;
        hanging = new CountDownLatch(1);
        was.countDown();
    }

    public List<Received> received(String path) {
        List<Received> out = new ArrayList<>();
        for (Received r : received) {
            if (r.path().equals(path)) {
                out.add(r);
            }
        }
        return out;
    }

    public int maxInFlight(String path) {
        AtomicInteger max = maxInFlight.get(path);
        return max == null ? 0 : max.get();
    }

    private void handle(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        byte[] body = exchange.getRequestBody().readAllBytes();
        received.add(new Received(path, Map.copyOf(exchange.getRequestHeaders()), body, System.nanoTime()));
        int now = inFlight.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
        maxInFlight.computeIfAbsent(path, p -> new AtomicInteger()).accumulateAndGet(now, Math::max);
        try {
            Answer answer =
                    scripts.getOrDefault(path, new ConcurrentLinkedQueue<>()).poll();
            if (answer == null) {
                answer = defaults.getOrDefault(path, OK);
            }
            switch (answer) {
                case Status s -> {
                    if (s.retryAfter() != null) {
                        exchange.getResponseHeaders().add("Retry-After", s.retryAfter());
                    }
                    exchange.sendResponseHeaders(s.code(), -1);
                }
                case Hang h -> {
                    try {
                        hanging.await(60, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                case Slow s -> {
                    try {
                        Thread.sleep(s.millis()); // the endpoint's own slowness, which the test is about
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    exchange.sendResponseHeaders(200, -1);
                }
                case Cut c -> {
                    // Closing the exchange without response headers makes the server drop the connection.
                }
            }
        } finally {
            inFlight.get(path).decrementAndGet();
            exchange.close();
        }
    }

    @Override
    public void close() {
        release();
        server.stop(0);
    }
}
