package dev.sendlog.bench.harness;

import dev.sendlog.tools.http.Http1Connection;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one closed-loop load every system gets: {@code clients} keep-alive connections, each submitting its next
 * message ({@code POST /v1/messages}) as soon as the previous one is answered, until {@code messages} were sent.
 * For each message it keeps the wall-clock start (epoch microseconds, to meet the simulator's clock), the round
 * trip, and the id from the 202 answer, which every system forwards to the provider as the reference.
 */
final class LoadGenerator {
    private final URI baseUrl;
    private final String authorization;

    LoadGenerator(String baseUrl, String key) {
        this.baseUrl = URI.create(baseUrl);
        this.authorization = "Bearer " + key;
    }

    /** What one load produced, indexed by message number; {@code ids[i]} is null for a refused message. */
    record Load(
            String[] ids,
            long[] startMicros,
            long[] roundTripNanos,
            long firstStartMicros,
            long lastEndMicros,
            int errors) {
        int accepted() {
            return ids.length - errors;
        }
    }

    Load run(int messages, int clients, String tag) throws InterruptedException {
        String[] ids = new String[messages];
        long[] startMicros = new long[messages];
        long[] roundTrips = new long[messages];
        AtomicInteger next = new AtomicInteger();
        AtomicInteger errors = new AtomicInteger();
        long first = now();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int c = 0; c < clients; c++) {
                threads.submit(() -> {
                    try (Http1Connection connection = new Http1Connection(baseUrl, 30_000)) {
                        ByteArrayOutputStream answer = new ByteArrayOutputStream(128);
                        for (int i = next.getAndIncrement(); i < messages; i = next.getAndIncrement()) {
                            byte[] payload = payload(tag, i);
                            answer.reset();
                            startMicros[i] = now();
                            long t0 = System.nanoTime();
                            try {
                                int status = connection.post("/v1/messages", authorization, payload, answer);
                                roundTrips[i] = System.nanoTime() - t0;
                                ids[i] = status == 202 ? idOf(answer.toString(StandardCharsets.UTF_8)) : null;
                            } catch (IOException e) {
                                roundTrips[i] = System.nanoTime() - t0;
                            }
                            if (ids[i] == null) {
                                errors.incrementAndGet();
                            }
                        }
                    }
                });
            }
        }
        return new Load(ids, startMicros, roundTrips, first, now(), errors.get());
    }

    static byte[] payload(String tag, int i) {
        return String.format(Locale.ROOT, "{\"to\":\"+49152%08d\",\"body\":\"benchmark %s message %d\"}", i, tag, i)
                .getBytes(StandardCharsets.UTF_8);
    }

    /** The value of the first {@code "id"} field of a JSON answer, or null. */
    static String idOf(String json) {
        int key = json.indexOf("\"id\"");
        if (key < 0) {
            return null;
        }
        int open = json.indexOf('"', json.indexOf(':', key) + 1);
        int close = open < 0 ? -1 : json.indexOf('"', open + 1);
        return close < 0 ? null : json.substring(open + 1, close);
    }

    static long now() {
        return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
    }
}
