package dev.sendlog.tools.loadtest;

import dev.sendlog.tools.http.Http1Connection;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one closed-loop load generator of the tools and the benchmark harness: {@code clients} keep-alive HTTP/1.1
 * connections (virtual threads), each sending its next POST as soon as the previous one is answered. Requests are
 * numbered 0, 1, 2... across the clients; a client stops when {@link Requests#request} gives null. The round trip of
 * each is measured around the write and the whole read, nothing else.
 */
public final class ClosedLoop {
    /** The {@code n}-th request, or null when there is none (the run ends once every client has seen null). */
    @FunctionalInterface
    public interface Requests {
        Request request(long n);
    }

    /** A POST of a JSON {@code payload} to {@code path}. */
    public record Request(String path, byte[] payload) {}

    /**
     * The answer to the {@code n}-th request: its start (epoch microseconds), round trip, status (-1 when the connection
     * failed) and, when the loop keeps bodies, the body (else null). Called on the client's thread.
     */
    @FunctionalInterface
    public interface Answers {
        void answered(long n, long startMicros, long roundTripNanos, int status, ByteArrayOutputStream body);
    }

    private final URI base;
    private final String authorization;

    /** Against {@code baseUrl} with {@code Authorization: Bearer key}. */
    public ClosedLoop(String baseUrl, String key) {
        this.base = URI.create(baseUrl);
        this.authorization = "Bearer " + key;
    }

    /** Runs until every client has seen the end of {@code requests}; returns how many were sent. */
    public long run(int clients, boolean keepBodies, Requests requests, Answers answers) throws InterruptedException {
        AtomicLong next = new AtomicLong();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int c = 0; c < clients; c++) {
                threads.submit(() -> {
                    try (Http1Connection connection = new Http1Connection(base, 30_000)) {
                        ByteArrayOutputStream body = keepBodies ? new ByteArrayOutputStream(256) : null;
                        for (long n = next.getAndIncrement(); ; n = next.getAndIncrement()) {
                            Request request = requests.request(n);
                            if (request == null) {
                                return;
                            }
                            if (body != null) {
                                body.reset();
                            }
                            long start = nowMicros();
                            long t0 = System.nanoTime();
                            int status;
                            try {
                                status = connection.post(request.path(), authorization, request.payload(), body);
                            } catch (IOException e) {
                                status = -1;
                            }
                            answers.answered(n, start, System.nanoTime() - t0, status, status < 0 ? null : body);
                        }
                    }
                });
            }
        }
        return next.get() - clients;
    }

    /** The wall clock in epoch microseconds (what the simulator's records are stamped with). */
    public static long nowMicros() {
        return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
    }
}
