package dev.sendlog.simulator;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.time.Instant;
import java.util.Map;
import java.util.function.Supplier;

/** {@code POST /v1/submit}: the provider side of the submit contract, with the configured faults. */
final class SubmitHandler {
    private static final String BEARER = "Bearer ";

    private final Supplier<ActiveConfig> activeConfig;
    private final Supplier<SimulatorState> state;
    private final CallbackSender callbackSender;

    SubmitHandler(Supplier<ActiveConfig> activeConfig, Supplier<SimulatorState> state, CallbackSender callbackSender) {
        this.activeConfig = activeConfig;
        this.state = state;
        this.callbackSender = callbackSender;
    }

    void handle(HttpExchange exchange) throws IOException, InterruptedException {
        ActiveConfig active = activeConfig.get();
        SimulatorConfig config = active.config();
        byte[] rawBody = exchange.getRequestBody().readAllBytes();

        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        if (authorization == null || !authorization.equals(BEARER + config.token())) {
            exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer");
            HttpResponses.text(exchange, 401, "missing or wrong bearer token");
            return;
        }
        String idempotencyKey = exchange.getRequestHeaders().getFirst("Idempotency-Key");
        if (idempotencyKey == null || idempotencyKey.isBlank()) {
            HttpResponses.text(exchange, 400, "the Idempotency-Key header is required");
            return;
        }
        SubmitRequest request;
        try {
            request = SubmitRequest.parse(rawBody);
        } catch (InvalidSubmitException e) {
            HttpResponses.text(exchange, 400, e.getMessage());
            return;
        }

        SimulatorState current = state.get();
        SimulatorCounters counters = current.counters();
        counters.submits.increment();
        counters.submitStarted();
        try {
            Thread.sleep(active.sampleLatencyMs());

            SimulatorRandom random = active.random();
            if (random.roll(config.transientErrorRate())) {
                counters.transientErrors.increment();
                exchange.getResponseHeaders().set("Retry-After", "1");
                if (random.roll(0.5)) {
                    HttpResponses.text(exchange, 503, "temporarily unavailable, retry later");
                } else {
                    HttpResponses.text(exchange, 429, "too many requests");
                }
                return;
            }
            if (random.roll(config.permanentErrorRate())) {
                counters.permanentErrors.increment();
                HttpResponses.text(exchange, 422, "destination " + request.to() + " is not reachable by this provider");
                return;
            }

            SimulatorState.Recorded recorded = current.record(idempotencyKey, request.reference(), config.idWrapModulus());
            counters.accepted.increment();
            if (recorded.created()) {
                scheduleReceipts(active, recorded.record(), request, current);
            } else {
                counters.duplicateSubmits.increment();
            }

            if (random.roll(config.dropAfterAcceptRate())) {
                counters.dropped.increment();
                // Closing an exchange before its headers were sent closes the connection: the client sees EOF.
                exchange.close();
                return;
            }
            HttpResponses.json(exchange, recorded.created() ? 201 : 200, Map.of("id", recorded.record().providerId()));
        } finally {
            counters.submitEnded();
        }
    }

    private void scheduleReceipts(ActiveConfig active, SubmitRecord record, SubmitRequest request,
                                  SimulatorState current) throws InterruptedException {
        if (request.callbackUrl() == null) {
            return;
        }
        SimulatorConfig config = active.config();
        Instant firstAt = Instant.now().plusMillis(config.receiptDelayMs());
        ReceiptPlan plan = new ReceiptPlan(record.providerId(), request.reference(), config.echoReference(),
                request.callbackUrl(), new ReceiptPlanner(config, active.random()).plan(firstAt),
                config.receiptDelayMs(), config.receiptSpacingMs(), config.callbackMaxAttempts(),
                config.callbackSecret());
        callbackSender.schedule(plan, current);
    }
}
