package dev.sendlog.bench.baseline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The baselines' client API, as small as the load generator needs: {@code POST /v1/messages} with
 * {@code {"to": ..., "body": ...}} answers {@code 202 {"id": ...}} once the message is committed, and
 * {@code GET /health} answers 200. The JDK server with one virtual thread per request, like sendlog's simulator.
 */
public final class AcceptServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AcceptServer.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    static {
        System.setProperty("sun.net.httpserver.nodelay", "true");
        System.setProperty("sun.net.httpserver.maxIdleConnections", "4096");
    }

    /** Commits one message and returns its id (forwarded to the provider as the reference). */
    @FunctionalInterface
    public interface Acceptor {
        String accept(SubmitRequest request) throws Exception;
    }

    private final HttpServer server;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

    private AcceptServer(int port, Acceptor acceptor) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1024);
        server.setExecutor(threads);
        server.createContext("/v1/messages", exchange -> handle(exchange, acceptor));
        server.createContext("/health", exchange -> {
            respond(exchange, 200, "{\"status\":\"ok\"}");
            exchange.close();
        });
    }

    /** Listens on 127.0.0.1:{@code port} (0 picks a free port). */
    public static AcceptServer start(int port, Acceptor acceptor) throws IOException {
        AcceptServer server = new AcceptServer(port, acceptor);
        server.server.start();
        return server;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private static void handle(HttpExchange exchange, Acceptor acceptor) throws IOException {
        try (exchange) {
            if (!"POST".equals(exchange.getRequestMethod())) {
                respond(exchange, 405, "{\"error\":\"POST only\"}");
                return;
            }
            SubmitRequest request;
            try {
                JsonNode node = JSON.readTree(exchange.getRequestBody());
                request = new SubmitRequest(
                        node.path("to").asText(""), node.path("body").asText(""));
            } catch (IOException e) {
                respond(exchange, 400, "{\"error\":\"body is not JSON\"}");
                return;
            }
            if (request.to().isEmpty() || request.body().isEmpty()) {
                respond(exchange, 400, "{\"error\":\"to and body are required\"}");
                return;
            }
            String id;
            try {
                id = acceptor.accept(request);
            } catch (Exception e) {
                LOG.warn("accept failed", e);
                respond(exchange, 503, "{\"error\":\"not committed\"}");
                return;
            }
            respond(exchange, 202, "{\"id\":\"" + id + "\",\"status\":\"ACCEPTED\"}");
        }
    }

    private static void respond(HttpExchange exchange, int status, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
