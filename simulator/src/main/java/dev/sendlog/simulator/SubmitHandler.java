package dev.sendlog.simulator;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.util.Map;
import java.util.function.Supplier;

/** {@code POST /v1/submit}: the provider side of the submit contract, with the configured faults. */
final class SubmitHandler {
    private static final String BEARER = "Bearer ";

    private final Supplier<ActiveConfig> activeConfig;
    private final Supplier<SimulatorState> state;
    private final CallbackSender callbackSender;
    private final Rate rate = new Rate();

    /**
     * The provider's own limit ({@code maxPerSecond}): a token bucket of one second's worth, full when the rate is first
     * set or changed, refilled continuously. Answered as the submit is decided, after its latency, as a provider would.
     */
    private static final class Rate {
        private int perSecond;
        private double tokens;
        private long refilledAt;

        synchronized boolean take(int limit, long nowNanos) {
            if (limit != perSecond) {
                perSecond = limit;
                tokens = limit;
                refilledAt = nowNanos;
            }
            tokens = Math.min(perSecond, tokens + (nowNanos - refilledAt) * perSecond / 1e9);
            refilledAt = nowNanos;
            if (tokens < 1) {
                return false;
            }
            tokens -= 1;
            return true;
        }
    }

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
        // A submit counts as in flight until its answer is decided, not until it is written: the client may read the
        // answer and send its next submit before this thread gets back from writing, which would count two at once.
        Reply reply;
        counters.submitsInFlight.started();
        try {
            reply = decide(active, config, current, request, idempotencyKey, exchange);
        } finally {
            counters.submitsInFlight.ended();
        }
        reply.send(exchange);
    }

    private Reply decide(
            ActiveConfig active,
            SimulatorConfig config,
            SimulatorState current,
            SubmitRequest request,
            String idempotencyKey,
            HttpExchange exchange)
            throws InterruptedException {
        SimulatorCounters counters = current.counters();
        Thread.sleep(active.sampleLatencyMs());

        if (config.maxPerSecond() > 0 && !rate.take(config.maxPerSecond(), System.nanoTime())) {
            counters.transientErrors.increment();
            counters.throttled.increment();
            exchange.getResponseHeaders().set("Retry-After", "1");
            return e -> HttpResponses.text(e, 429, "too many requests: above " + config.maxPerSecond() + " per second");
        }
        SimulatorRandom random = active.random();
        if (random.roll(config.transientErrorRate())) {
            counters.transientErrors.increment();
            exchange.getResponseHeaders().set("Retry-After", "1");
            return e -> HttpResponses.text(e, 503, "temporarily unavailable, retry later");
        }
        if (random.roll(config.permanentErrorRate())) {
            counters.permanentErrors.increment();
            return e ->
                    HttpResponses.text(e, 422, "destination " + request.to() + " is not reachable by this provider");
        }

        ReceiptPlanner planner = new ReceiptPlanner(config, random);
        SimulatorState.Recorded recorded = current.record(
                idempotencyKey,
                request.reference(),
                request.from(),
                request.validUntil(),
                config.idWrapModulus(),
                planner::history,
                config.receiptDelayMs(),
                config.receiptSpacingMs());
        counters.accepted.increment();
        if (recorded.created()) {
            scheduleReceipts(active, recorded.record(), planner, request, current);
        } else {
            counters.duplicateSubmits.increment();
        }

        if (random.roll(config.dropAfterAcceptRate())) {
            counters.dropped.increment();
            // Closing an exchange before its headers were sent closes the connection: the client sees EOF.
            return HttpExchange::close;
        }
        return e -> HttpResponses.json(
                e,
                recorded.created() ? 201 : 200,
                Map.of("id", recorded.record().providerId()));
    }

    private void scheduleReceipts(
            ActiveConfig active,
            SubmitRecord record,
            ReceiptPlanner planner,
            SubmitRequest request,
            SimulatorState current)
            throws InterruptedException {
        if (request.callbackUrl() == null) {
            return;
        }
        SimulatorConfig config = active.config();
        // Rolled only when set, so that a seeded run without losses rolls the same sequence as before the setting
        // existed.
        if (config.callbackLossRate() > 0 && active.random().roll(config.callbackLossRate())) {
            current.counters().callbacksLost.increment();
            return;
        }
        ReceiptPlan plan = new ReceiptPlan(
                record.providerId(),
                request.reference(),
                config.echoReference(),
                request.callbackUrl(),
                planner.callbacks(record.history()),
                config.receiptDelayMs(),
                config.receiptSpacingMs(),
                config.callbackMaxAttempts(),
                config.callbackSecret());
        callbackSender.schedule(plan, current);
    }
}
