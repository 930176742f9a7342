package dev.sendlog.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntUnaryOperator;

/** A callback endpoint for tests: records every request and answers a status chosen per request number. */
final class CallbackReceiver implements AutoCloseable {
    /** One request as it arrived. */
    record Received(byte[] rawBody, String signature, String contentType, int answeredStatus) {
        JsonNode json() {
            try {
                return Json.MAPPER.readTree(rawBody);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        String status() {
            return json().path("status").asText();
        }
    }

    private final HttpServer server;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final AtomicInteger requestCount = new AtomicInteger();
    private final IntUnaryOperator statusForRequestNumber;

    private CallbackReceiver(IntUnaryOperator statusForRequestNumber) throws IOException {
        this.statusForRequestNumber = statusForRequestNumber;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), 0), 256);
        server.setExecutor(threads);
        server.createContext("/", this::handle);
        server.start();
    }

    /** A receiver that answers 200 to everything. */
    static CallbackReceiver start() throws IOException {
        return new CallbackReceiver(requestNumber -> 200);
    }

    /** A receiver whose answer to the n-th request (1-based) is {@code statusForRequestNumber(n)}. */
    static CallbackReceiver answering(IntUnaryOperator statusForRequestNumber) throws IOException {
        return new CallbackReceiver(statusForRequestNumber);
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1/callbacks/sim";
    }

    List<Received> received() {
        return List.copyOf(received);
    }

    /** The received requests that were answered 2xx, in arrival order. */
    List<Received> accepted() {
        return received.stream().filter(r -> r.answeredStatus() / 100 == 2).toList();
    }

    List<String> acceptedStatuses() {
        return accepted().stream().map(Received::status).toList();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body = exchange.getRequestBody().readAllBytes();
            int status = statusForRequestNumber.applyAsInt(requestCount.incrementAndGet());
            received.add(new Received(
                    body,
                    exchange.getRequestHeaders().getFirst("X-Signature"),
                    exchange.getRequestHeaders().getFirst("Content-Type"),
                    status));
            exchange.sendResponseHeaders(status, -1);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
