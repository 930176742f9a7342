package dev.sendlog.simulator;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Measures submits per second against a simulator in this JVM: {@code clients} keep-alive connections submit
 * in a loop for {@code seconds} after a warm-up. Arguments: [clients=256] [seconds=10] [latencyMs=20]
 * [callbacks=false]; with callbacks, every message also sends its receipts to a receiver in this JVM.
 * Not a test: run it with {@code java -cp ... dev.sendlog.simulator.SubmitRateBenchmark}.
 */
public final class SubmitRateBenchmark {
    private static final Duration WARM_UP = Duration.ofSeconds(3);

    private SubmitRateBenchmark() {}

    private static long pendingCallbacks(SimulatorStats stats) {
        return stats.callbacksSent() - stats.callbacksDelivered() - stats.callbacksFailed();
    }

    public static void main(String[] args) throws Exception {
        int clients = args.length > 0 ? Integer.parseInt(args[0]) : 256;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        long latencyMs = args.length > 2 ? Long.parseLong(args[2]) : 20;
        boolean callbacks = args.length > 3 && Boolean.parseBoolean(args[3]);

        SimulatorConfig config = SimulatorConfig.builder().latencyMs(latencyMs).build();
        try (ProviderSimulator simulator = ProviderSimulator.start(config, 0);
                CallbackReceiver receiver = CallbackReceiver.start();
                HttpClient http = HttpClient.newBuilder()
                        .version(HttpClient.Version.HTTP_1_1)
                        .build()) {
            String callbackUrl = callbacks ? receiver.url() : null;
            URI submitUri = URI.create(simulator.baseUrl() + "/v1/submit");
            AtomicLong keys = new AtomicLong();
            LongAdder accepted = new LongAdder();
            LongAdder failed = new LongAdder();
            long warmUpEndsAt = System.nanoTime() + WARM_UP.toNanos();
            long endsAt = warmUpEndsAt + Duration.ofSeconds(seconds).toNanos();

            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                threads.add(Thread.ofVirtual().start(() -> {
                    while (System.nanoTime() < endsAt) {
                        long key = keys.incrementAndGet();
                        HttpRequest request = HttpRequest.newBuilder(submitUri)
                                .header("Authorization", "Bearer " + config.token())
                                .header("Idempotency-Key", "bench-" + key)
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(SimulatorClient.body(
                                        "+4915112345678", "Your code is 123456", "ref-" + key, callbackUrl)))
                                .build();
                        boolean ok;
                        try {
                            ok = http.send(request, HttpResponse.BodyHandlers.ofString())
                                            .statusCode()
                                    == 201;
                        } catch (Exception e) {
                            ok = false;
                        }
                        if (System.nanoTime() >= warmUpEndsAt) {
                            (ok ? accepted : failed).increment();
                        }
                    }
                }));
            }
            for (Thread thread : threads) {
                thread.join();
            }
            long submitsEndedAt = System.nanoTime();
            long drainDeadline = submitsEndedAt + Duration.ofSeconds(60).toNanos();
            while (callbacks && System.nanoTime() < drainDeadline && pendingCallbacks(simulator.stats()) > 0) {
                Thread.sleep(50);
            }
            if (callbacks) {
                SimulatorStats stats = simulator.stats();
                double drainSeconds = (System.nanoTime() - submitsEndedAt) / 1e9;
                System.out.printf(
                        "callbacks delivered=%d failed=%d pending=%d, drained %.1f s after the submits ended%n",
                        stats.callbacksDelivered(), stats.callbacksFailed(), pendingCallbacks(stats), drainSeconds);
            }
            System.out.printf(
                    "clients=%d latencyMs=%d callbacks=%s seconds=%d accepted=%d failed=%d rate=%.0f submits/s%n",
                    clients,
                    latencyMs,
                    callbacks,
                    seconds,
                    accepted.sum(),
                    failed.sum(),
                    accepted.sum() / (double) seconds);
            System.out.println("stats " + Json.MAPPER.writeValueAsString(simulator.stats()));
        }
    }
}
