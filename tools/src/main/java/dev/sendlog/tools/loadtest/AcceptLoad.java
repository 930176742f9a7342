package dev.sendlog.tools.loadtest;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The accept benchmark's load: {@link ClosedLoop} for a fixed time, single messages or batches of {@code batchSize}.
 */
final class AcceptLoad {
    private final String baseUrl;
    private final String key;

    AcceptLoad(String baseUrl, String key) {
        this.baseUrl = baseUrl;
        this.key = key;
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
        String path = batchSize == 0 ? "/v1/messages" : "/v1/messages/batch";
        new ClosedLoop(baseUrl, key)
                .run(
                        concurrency,
                        false,
                        n -> System.nanoTime() < end ? new ClosedLoop.Request(path, payload(n + 1, batchSize)) : null,
                        (n, startMicros, roundTripNanos, status, body) -> {
                            if (status < 0) {
                                errors.incrementAndGet();
                                return;
                            }
                            latencies.record(roundTripNanos);
                            if (status == 202) {
                                accepted.addAndGet(batchSize == 0 ? 1 : batchSize);
                            } else {
                                errors.incrementAndGet();
                            }
                        });
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
