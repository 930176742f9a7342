package dev.sendlog.tools.loadtest;

import dev.sendlog.tools.http.Http1Connection;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A closed-loop load of submits: {@code concurrency} clients, each sending its next request as soon as
 * the previous one is answered, for a fixed time. Single messages or batches of {@code batchSize}.
 */
final class AcceptLoad {
    private final URI baseUrl;
    private final String authorization;

    AcceptLoad(String baseUrl, String key) {
        this.baseUrl = URI.create(baseUrl);
        this.authorization = "Bearer " + key;
    }

    record Result(
            String target,
            String scenario,
            int concurrency,
            double messagesPerSecond,
            LatencyRecorder.Percentiles latency,
            long errors) {}

    Result run(String target, int concurrency, int batchSize, Duration warmup, Duration duration)
            throws InterruptedException {
        drive(concurrency, batchSize, warmup, new LatencyRecorder(), new AtomicLong(), new AtomicLong());
        LatencyRecorder latencies = new LatencyRecorder();
        AtomicLong accepted = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        long start = System.nanoTime();
        drive(concurrency, batchSize, duration, latencies, accepted, errors);
        double seconds = (System.nanoTime() - start) / 1e9;
        String scenario = batchSize == 0 ? "single" : "batch of " + batchSize;
        return new Result(
                target, scenario, concurrency, accepted.get() / seconds, latencies.percentiles(), errors.get());
    }

    private void drive(
            int concurrency,
            int batchSize,
            Duration duration,
            LatencyRecorder latencies,
            AtomicLong accepted,
            AtomicLong errors)
            throws InterruptedException {
        long end = System.nanoTime() + duration.toNanos();
        AtomicLong sequence = new AtomicLong();
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int c = 0; c < concurrency; c++) {
                clients.submit(() -> {
                    try (Http1Connection connection = new Http1Connection(baseUrl, 30_000)) {
                        while (System.nanoTime() < end) {
                            long n = sequence.incrementAndGet();
                            String path = batchSize == 0 ? "/v1/messages" : "/v1/messages/batch";
                            byte[] payload = payload(n, batchSize);
                            long t0 = System.nanoTime();
                            try {
                                int status = connection.post(path, authorization, payload, null);
                                latencies.record(System.nanoTime() - t0);
                                if (status == 202) {
                                    accepted.addAndGet(batchSize == 0 ? 1 : batchSize);
                                } else {
                                    errors.incrementAndGet();
                                }
                            } catch (IOException e) {
                                errors.incrementAndGet();
                            }
                        }
                    }
                });
            }
        }
    }

    private static byte[] payload(long n, int batchSize) {
        if (batchSize == 0) {
            return message(n).getBytes(StandardCharsets.UTF_8);
        }
        StringBuilder b = new StringBuilder("{\"messages\":[");
        for (int i = 0; i < batchSize; i++) {
            b.append(i == 0 ? "" : ",").append(message(n * batchSize + i));
        }
        return b.append("]}").toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String message(long n) {
        return "{\"to\":\"+49151" + String.format("%08d", n % 100_000_000) + "\",\"body\":\"load test message " + n
                + "\",\"reference\":\"lt-" + n + "\"}";
    }
}
