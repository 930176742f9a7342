package dev.sendlog.simulator;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/** Writing whole responses to an exchange. */
final class HttpResponses {
    static final String TEXT = "text/plain; charset=utf-8";
    static final String JSON = "application/json";

    private HttpResponses() {}

    static void text(HttpExchange exchange, int status, String text) throws IOException {
        send(exchange, status, TEXT, text.getBytes(StandardCharsets.UTF_8));
    }

    static void json(HttpExchange exchange, int status, Object value) throws IOException {
        send(exchange, status, JSON, Json.MAPPER.writeValueAsBytes(value));
    }

    static void noContent(HttpExchange exchange) throws IOException {
        exchange.sendResponseHeaders(204, -1);
    }

    static void send(HttpExchange exchange, int status, String contentType, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    /** Starts a chunked 200 response whose body the caller writes and closes. */
    static OutputStream streamed(HttpExchange exchange, String contentType) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.sendResponseHeaders(200, 0);
        return exchange.getResponseBody();
    }
}
