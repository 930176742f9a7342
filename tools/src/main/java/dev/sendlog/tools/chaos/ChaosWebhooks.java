package dev.sendlog.tools.chaos;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.sendlog.service.webhooks.WebhookSecret;
import dev.sendlog.service.webhooks.WebhookSignature;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * The chaos run's status webhook receiver (issue 27): the load's tenant registers it for SENT and every final status;
 * it answers 200 and counts each event id it receives. A fault takes it down (connection refused) for a while. The check
 * proves DESIGN invariant 17 on the run's log: every event that made a message final owes a delivery, every delivery
 * ended DELIVERED (none owed, none dead), and every delivered event id reached the receiver at least once, signed: the
 * receiver verifies every request's {@code Sendlog-Signature} with the secret the registration showed, as a client
 * would, and a request it cannot verify is answered 400 and counted (the check fails on any). Duplicates (at least
 * once, not exactly once) are counted and reported, not failed.
 */
final class ChaosWebhooks implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String EVENTS =
            "[\"SENT\",\"DELIVERED\",\"UNDELIVERED\",\"UNKNOWN\",\"REJECTED\",\"DEAD\",\"EXPIRED\",\"CANCELLED\"]";

    private final int port;
    /** How far a delivery's signed time may be from the receiver's clock: five minutes, as a client would choose. */
    private static final long TOLERANCE_SECONDS = 300;

    private final Map<String, AtomicInteger> received = new ConcurrentHashMap<>();
    private final AtomicInteger unverified = new AtomicInteger();
    private volatile WebhookSecret secret;
    private volatile HttpServer server;

    /** What the check found. */
    record Result(
            long owed, long delivered, long dead, long notOwed, long neverReceived, long duplicates, long unverified) {
        boolean passed() {
            return owed == 0 && dead == 0 && notOwed == 0 && neverReceived == 0 && unverified == 0;
        }
    }

    ChaosWebhooks(int port) throws IOException {
        this.port = port;
        up();
    }

    String url() {
        return "http://127.0.0.1:" + port + "/hooks";
    }

    /** Listening again (after {@link #down}). */
    synchronized void up() throws IOException {
        if (server != null) {
            return;
        }
        HttpServer s = bind();
        s.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        s.createContext("/", this::handle);
        s.start();
        server = s;
    }

    /** Binds the port again; a moment after it was closed the bind may fail, so it is tried for up to 10 s. */
    private HttpServer bind() throws IOException {
        IOException last = null;
        for (int i = 0; i < 50; i++) {
            try {
                return HttpServer.create(new InetSocketAddress("127.0.0.1", port), 200);
            } catch (java.net.BindException e) {
                last = e;
                try {
                    Thread.sleep(200);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while binding the webhook receiver", ie);
                }
            }
        }
        throw last;
    }

    /** Not listening: every delivery attempt meanwhile is a refused connection. */
    synchronized void down() {
        if (server != null) {
            server.stop(0);
            server = null;
        }
    }

    private void handle(HttpExchange exchange) throws IOException {
        try {
            byte[] body = exchange.getRequestBody().readAllBytes();
            WebhookSecret key = secret;
            if (key == null
                    || !WebhookSignature.verify(
                            exchange.getRequestHeaders().getFirst(WebhookSignature.HEADER),
                            body,
                            key,
                            System.currentTimeMillis() / 1000,
                            TOLERANCE_SECONDS)) {
                // Not counted as received: a delivery the client cannot verify is as good as lost.
                unverified.incrementAndGet();
                exchange.sendResponseHeaders(400, -1);
                return;
            }
            String eventId = JSON.readTree(body).path("eventId").asText();
            received.computeIfAbsent(eventId, id -> new AtomicInteger()).incrementAndGet();
            exchange.sendResponseHeaders(200, -1);
        } finally {
            exchange.close();
        }
    }

    /** Registers the receiver for the load's tenant ({@code demo}) through the API, with the admin key. */
    void register(String apiUrl) throws IOException, InterruptedException {
        String body = "{\"url\":\"" + url() + "\",\"events\":" + EVENTS + "}";
        HttpResponse<String> r = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(apiUrl + "/v1/webhook?tenant=demo"))
                                .header("Authorization", "Bearer demo-admin-key")
                                .header("Content-Type", "application/json")
                                .PUT(HttpRequest.BodyPublishers.ofString(body))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException(
                    "registering the chaos webhook answered " + r.statusCode() + ": " + r.body());
        }
        // Shown once, at the first registration: what the receiver verifies every delivery with.
        secret = WebhookSecret.of(JSON.readTree(r.body()).path("secret").asText());
    }

    /** Deliveries still owed: the drain waits for none. */
    static long owed(DataSource ds) throws SQLException {
        return ChaosCheck.count(ds, "SELECT count(*) FROM webhook_deliveries WHERE state = 0");
    }

    Result check(DataSource ds) throws SQLException {
        long owed = owed(ds);
        long dead = ChaosCheck.count(ds, "SELECT count(*) FROM webhook_deliveries WHERE state = 2");
        // Every event that made a message of the tenant final owes a delivery (the registration asks for every final).
        long notOwed = ChaosCheck.count(
                ds,
                "SELECT count(*) FROM message_events e WHERE e.status IS NOT NULL AND e.tenant = 'demo' "
                        + "AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.message_id = e.message_id AND d.seq = e.seq)");
        long delivered = 0;
        long neverReceived = 0;
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(
                        "SELECT message_id::text || ':' || seq FROM webhook_deliveries WHERE state = 1")) {
            while (rs.next()) {
                delivered++;
                if (!received.containsKey(rs.getString(1))) {
                    neverReceived++;
                }
            }
        }
        long duplicates = received.values().stream().mapToLong(n -> n.get() - 1).sum();
        return new Result(owed, delivered, dead, notOwed, neverReceived, duplicates, unverified.get());
    }

    @Override
    public void close() {
        down();
    }
}
