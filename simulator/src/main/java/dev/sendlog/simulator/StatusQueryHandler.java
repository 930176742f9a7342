package dev.sendlog.simulator;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code GET /v1/submit/{Idempotency-Key}}: the status query of API.md's provider contract. For a key it accepted, 200
 * with the provider id and the message's latest status at the provider, in the callbacks' vocabulary and format (an
 * unknown word or bad timestamp the history rolled is answered as it is, as a callback would carry it); before anything
 * has happened to it, the first intermediate status at the time it was accepted. 404 for a key it never accepted;
 * {@code queryErrorRate} of the queries 503. Queries change nothing and are not submits.
 */
final class StatusQueryHandler {
    private static final String BEARER = "Bearer ";

    private final Supplier<ActiveConfig> activeConfig;
    private final Supplier<SimulatorState> state;

    StatusQueryHandler(Supplier<ActiveConfig> activeConfig, Supplier<SimulatorState> state) {
        this.activeConfig = activeConfig;
        this.state = state;
    }

    void handle(HttpExchange exchange, String idempotencyKey) throws IOException {
        ActiveConfig active = activeConfig.get();
        SimulatorConfig config = active.config();
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        if (authorization == null || !authorization.equals(BEARER + config.token())) {
            exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer");
            HttpResponses.text(exchange, 401, "missing or wrong bearer token");
            return;
        }
        SimulatorState current = state.get();
        current.counters().statusQueries.increment();
        Reply reply;
        current.counters().queriesInFlight.started();
        try {
            reply = answer(exchange, idempotencyKey, active, config, current);
        } finally {
            current.counters().queriesInFlight.ended();
        }
        reply.send(exchange);
    }

    private Reply answer(
            HttpExchange exchange,
            String idempotencyKey,
            ActiveConfig active,
            SimulatorConfig config,
            SimulatorState current) {
        if (config.queryLatencyMs() > 0) {
            try {
                Thread.sleep(config.queryLatencyMs()); // the provider's lookup time, as configured
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return out -> HttpResponses.text(out, 503, "interrupted");
            }
        }
        if (config.queryErrorRate() > 0 && active.random().roll(config.queryErrorRate())) {
            exchange.getResponseHeaders().set("Retry-After", "1");
            return e -> HttpResponses.text(e, 503, "temporarily unavailable, retry later");
        }
        SubmitRecord record = current.find(idempotencyKey);
        if (record == null) {
            return e -> HttpResponses.text(e, 404, "no submit with this idempotency key was accepted");
        }
        Vocabulary vocabulary = config.vocabulary();
        Receipt status = record.statusAt(Instant.now())
                .orElseGet(() -> new Receipt(
                        vocabulary.intermediateStatus(0), vocabulary.formatTimestamp(record.recordedAt()), null));
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("id", record.providerId());
        answer.put("status", status.status());
        answer.put("timestamp", status.timestamp());
        if (status.errorCode() != null) {
            answer.put("errorCode", status.errorCode());
        }
        return e -> HttpResponses.json(e, 200, answer);
    }
}
