package dev.sendlog.simulator;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the callbacks of accepted messages. Each message gets a virtual thread that sends its receipts one
 * after the other, so they arrive in the planned order even when one needs retries. At most
 * {@code callbackConcurrency} requests are in flight; at most {@code callbackQueueCapacity} messages wait
 * for their callbacks, beyond that {@link #schedule} blocks the submit. A callback is never dropped:
 * it is delivered, or counted as failed after its last attempt.
 */
final class CallbackSender implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(CallbackSender.class);
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);

    private final ExecutorService messageThreads = Executors.newVirtualThreadPerTaskExecutor();
    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(CONNECT_TIMEOUT)
            .build();
    private final AdjustableLimit inFlight;
    private final AdjustableLimit queued;

    CallbackSender(SimulatorConfig config) {
        inFlight = new AdjustableLimit(config.callbackConcurrency());
        queued = new AdjustableLimit(config.callbackQueueCapacity());
    }

    void reconfigure(SimulatorConfig config) {
        inFlight.setLimit(config.callbackConcurrency());
        queued.setLimit(config.callbackQueueCapacity());
    }

    /** Logs the plan's callbacks as decided and starts sending them after the plan's delay. */
    void schedule(ReceiptPlan plan, SimulatorState state) throws InterruptedException {
        if (plan.receipts().isEmpty()) {
            return;
        }
        queued.acquire();
        List<CallbackLogEntry> entries = new ArrayList<>(plan.receipts().size());
        for (Receipt receipt : plan.receipts()) {
            entries.add(state.logCallback(plan.providerId(), plan.reference(), receipt.status(), receipt.timestamp()));
        }
        try {
            messageThreads.execute(() -> sendAll(plan, entries, state));
        } catch (RejectedExecutionException e) {
            queued.release();
            throw e;
        }
    }

    private void sendAll(ReceiptPlan plan, List<CallbackLogEntry> entries, SimulatorState state) {
        int sent = 0;
        try {
            Thread.sleep(plan.delayMs());
            for (; sent < plan.receipts().size(); sent++) {
                if (sent > 0) {
                    Thread.sleep(plan.spacingMs());
                }
                send(plan, plan.receipts().get(sent), entries.get(sent), state.counters());
            }
        } catch (InterruptedException e) {
            // Only close() interrupts: the simulator is going away with its callbacks.
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            int unsent = plan.receipts().size() - sent;
            state.counters().callbacksFailed.add(unsent);
            log.error(
                    "Gave up the last {} callbacks of provider id {} to {}",
                    unsent,
                    plan.providerId(),
                    plan.callbackUrl(),
                    e);
        } finally {
            queued.release();
        }
    }

    private void send(ReceiptPlan plan, Receipt receipt, CallbackLogEntry entry, SimulatorCounters counters)
            throws InterruptedException {
        byte[] body = serialize(plan.payload(receipt));
        HttpRequest request = HttpRequest.newBuilder(plan.callbackUrl())
                .timeout(REQUEST_TIMEOUT)
                .header("Content-Type", "application/json")
                .header("X-Signature", CallbackSigner.signature(plan.callbackSecret(), body))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
        for (int attempt = 1; attempt <= plan.maxAttempts(); attempt++) {
            if (attempt(request, counters)) {
                entry.markDelivered();
                counters.callbacksDelivered.increment();
                return;
            }
            if (attempt < plan.maxAttempts()) {
                Thread.sleep(RetryBackoff.delayMs(attempt));
            }
        }
        counters.callbacksFailed.increment();
        log.warn(
                "Gave up the callback {} {} of provider id {} to {} after {} attempts",
                receipt.status(),
                receipt.timestamp(),
                plan.providerId(),
                plan.callbackUrl(),
                plan.maxAttempts());
    }

    /** One request; true when the receiver answered 2xx. */
    private boolean attempt(HttpRequest request, SimulatorCounters counters) throws InterruptedException {
        inFlight.acquire();
        try {
            counters.callbackAttempts.increment();
            HttpResponse<Void> response = client.send(request, HttpResponse.BodyHandlers.discarding());
            boolean delivered = response.statusCode() / 100 == 2;
            if (!delivered) {
                log.debug("Callback to {} answered {}", request.uri(), response.statusCode());
            }
            return delivered;
        } catch (IOException e) {
            log.debug("Callback to {} failed: {}", request.uri(), e.toString());
            return false;
        } finally {
            inFlight.release();
        }
    }

    private static byte[] serialize(CallbackPayload payload) {
        try {
            return Json.MAPPER.writeValueAsBytes(payload);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a callback payload of strings always serialises", e);
        }
    }

    @Override
    public void close() {
        client.shutdownNow();
        messageThreads.shutdownNow();
        try {
            if (!messageThreads.awaitTermination(5, TimeUnit.SECONDS)) {
                log.warn("Callback threads still running after close");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
