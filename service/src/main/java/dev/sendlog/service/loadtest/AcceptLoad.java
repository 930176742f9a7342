package dev.sendlog.service.loadtest;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A closed-loop load of submits: {@code concurrency} clients, each sending its next request as soon as
 * the previous one is answered, for a fixed time. Single messages or batches of {@code batchSize}.
 */
final class AcceptLoad {
    private final HttpClient http;
    private final String baseUrl;
    private final String key;

    AcceptLoad(HttpClient http, String baseUrl, String key) {
        this.http = http;
        this.baseUrl = baseUrl;
        this.key = key;
    }

    record Result(String target, String scenario, int concurrency, double messagesPerSecond, LatencyRecorder.Percentiles latency,
                  long errors) {
    }

    Result run(String target, int concurrency, int batchSize, Duration warmup, Duration duration) throws InterruptedException {
        drive(concurrency, batchSize, warmup, new LatencyRecorder(), new AtomicLong(), new AtomicLong());
        LatencyRecorder latencies = new LatencyRecorder();
        AtomicLong accepted = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        long start = System.nanoTime();
        drive(concurrency, batchSize, duration, latencies, accepted, errors);
        double seconds = (System.nanoTime() - start) / 1e9;
        String scenario = batchSize == 0 ? "single" : "batch of " + batchSize;
        return new Result(target, scenario, concurrency, accepted.get() / seconds, latencies.percentiles(), errors.get());
    }

    private void drive(int concurrency, int batchSize, Duration duration, LatencyRecorder latencies, AtomicLong accepted,
                       AtomicLong errors) throws InterruptedException {
        long end = System.nanoTime() + duration.toNanos();
        AtomicLong sequence = new AtomicLong();
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int c = 0; c < concurrency; c++) {
                clients.submit(() -> {
                    while (System.nanoTime() < end) {
                        long n = sequence.incrementAndGet();
                        HttpRequest request = request(n, batchSize);
                        long t0 = System.nanoTime();
                        try {
                            HttpResponse<Void> r = http.send(request, HttpResponse.BodyHandlers.discarding());
                            latencies.record(System.nanoTime() - t0);
                            if (r.statusCode() == 202) {
                                accepted.addAndGet(batchSize == 0 ? 1 : batchSize);
                            } else {
                                errors.incrementAndGet();
                            }
                        } catch (java.io.IOException e) {
                            errors.incrementAndGet();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return;
                        }
                    }
                });
            }
        }
    }

    private HttpRequest request(long n, int batchSize) {
        String body;
        String path;
        if (batchSize == 0) {
            path = "/v1/messages";
            body = message(n);
        } else {
            path = "/v1/messages/batch";
            StringBuilder b = new StringBuilder("{\"messages\":[");
            for (int i = 0; i < batchSize; i++) {
                b.append(i == 0 ? "" : ",").append(message(n * batchSize + i));
            }
            body = b.append("]}").toString();
        }
        return HttpRequest.newBuilder(URI.create(baseUrl + path))
                .header("Authorization", "Bearer " + key)
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
    }

    private static String message(long n) {
        return "{\"to\":\"+49151" + String.format("%08d", n % 100_000_000) + "\",\"body\":\"load test message " + n
                + "\",\"reference\":\"lt-" + n + "\"}";
    }
}
