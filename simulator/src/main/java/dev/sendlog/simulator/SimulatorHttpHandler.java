package dev.sendlog.simulator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Routes every request of the simulator's server; unknown routes answer 404, unexpected failures 500. */
final class SimulatorHttpHandler implements HttpHandler {
    private static final String TOKEN = "token";
    private static final String CALLBACK_SECRET = "callbackSecret";

    private static final Logger log = LoggerFactory.getLogger(SimulatorHttpHandler.class);

    private final ProviderSimulator simulator;
    private static final String STATUS_QUERY = "GET /v1/submit/";

    private final SubmitHandler submitHandler;
    private final StatusQueryHandler statusQuery;

    SimulatorHttpHandler(ProviderSimulator simulator, SubmitHandler submitHandler, StatusQueryHandler statusQuery) {
        this.simulator = simulator;
        this.submitHandler = submitHandler;
        this.statusQuery = statusQuery;
    }

    @Override
    public void handle(HttpExchange exchange) {
        try {
            route(exchange);
        } catch (InterruptedException e) {
            // The server's threads are interrupted only when it stops.
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.error("{} {} failed", exchange.getRequestMethod(), exchange.getRequestURI(), e);
            answerFailure(exchange, e);
        } finally {
            exchange.close();
        }
    }

    private void route(HttpExchange exchange) throws IOException, InterruptedException {
        String route =
                exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath();
        if (route.startsWith(STATUS_QUERY) && route.length() > STATUS_QUERY.length()) {
            statusQuery.handle(exchange, exchange.getRequestURI().getPath().substring("/v1/submit/".length()));
            return;
        }
        switch (route) {
            case "POST /v1/submit" -> submitHandler.handle(exchange);
            case "GET /v1/stats" -> HttpResponses.json(exchange, 200, simulator.stats());
            case "GET /v1/keys" -> writeKeys(exchange);
            case "GET /v1/records" -> writeRecords(exchange);
            case "GET /v1/callbacks/log" -> writeCallbackLog(exchange);
            case "GET /v1/config" -> HttpResponses.json(exchange, 200, withoutSecrets(simulator.config()));
            case "PUT /v1/config" -> putConfig(exchange);
            case "POST /v1/reset" -> {
                simulator.reset();
                HttpResponses.noContent(exchange);
            }
            default -> HttpResponses.text(exchange, 404, "no route for " + route);
        }
    }

    private void writeKeys(HttpExchange exchange) throws IOException {
        try (Writer out = writer(exchange, HttpResponses.TEXT)) {
            for (String key : simulator.state().keys()) {
                out.write(key);
                out.write('\n');
            }
        }
    }

    /**
     * One JSON object per line for each recorded key: {@code key}, {@code providerId}, {@code reference}, {@code from}
     * and {@code validUntil} (each may be null) and {@code recordedAtMicros}, the epoch microseconds of its first accepted submit. Benchmarks measure
     * end-to-end latency against it without trusting the system under test.
     */
    private void writeRecords(HttpExchange exchange) throws IOException {
        try (Writer out = writer(exchange, "application/x-ndjson")) {
            for (SubmitRecord record : simulator.state().records()) {
                Map<String, Object> line = new LinkedHashMap<>();
                line.put("key", record.idempotencyKey());
                line.put("providerId", record.providerId());
                line.put("reference", record.reference());
                line.put("from", record.from());
                line.put("validUntil", record.validUntil());
                line.put("recordedAtMicros", ChronoUnit.MICROS.between(Instant.EPOCH, record.recordedAt()));
                out.write(Json.MAPPER.writeValueAsString(line));
                out.write('\n');
            }
        }
    }

    private void writeCallbackLog(HttpExchange exchange) throws IOException {
        try (Writer out = writer(exchange, "application/x-ndjson")) {
            for (CallbackLogEntry entry : simulator.state().callbackLog()) {
                out.write(Json.MAPPER.writeValueAsString(entry));
                out.write('\n');
            }
        }
    }

    /**
     * A new configuration. The token and the callback secret are kept unless the body names them, since
     * {@code GET /v1/config} does not show them: a configuration read, changed and put back keeps its secrets.
     */
    private void putConfig(HttpExchange exchange) throws IOException {
        SimulatorConfig config;
        try {
            JsonNode body = Json.MAPPER.readTree(exchange.getRequestBody());
            if (!(body instanceof ObjectNode object)) {
                HttpResponses.text(exchange, 400, "invalid configuration: not a JSON object");
                return;
            }
            SimulatorConfig current = simulator.config();
            if (!object.has(TOKEN)) {
                object.put(TOKEN, current.token());
            }
            if (!object.has(CALLBACK_SECRET)) {
                object.put(CALLBACK_SECRET, current.callbackSecret());
            }
            config = Json.MAPPER.treeToValue(object, SimulatorConfig.class);
        } catch (JsonProcessingException e) {
            HttpResponses.text(exchange, 400, "invalid configuration: " + e.getOriginalMessage());
            return;
        }
        simulator.updateConfig(config);
        HttpResponses.json(exchange, 200, withoutSecrets(config));
    }

    /** The configuration as anyone who reaches the simulator may read it: everything but the token and the secret. */
    static ObjectNode withoutSecrets(SimulatorConfig config) {
        ObjectNode shown = Json.MAPPER.valueToTree(config);
        shown.remove(TOKEN);
        shown.remove(CALLBACK_SECRET);
        return shown;
    }

    private static Writer writer(HttpExchange exchange, String contentType) throws IOException {
        return new BufferedWriter(
                new OutputStreamWriter(HttpResponses.streamed(exchange, contentType), StandardCharsets.UTF_8),
                64 * 1024);
    }

    private static void answerFailure(HttpExchange exchange, Exception failure) {
        if (exchange.getResponseCode() != -1) {
            return; // Headers are out: closing the exchange is all that is left; the failure is logged.
        }
        try {
            HttpResponses.text(exchange, 500, "internal error: " + failure);
        } catch (IOException e) {
            log.warn("Could not answer 500 to {} {}", exchange.getRequestMethod(), exchange.getRequestURI(), e);
        }
    }
}
