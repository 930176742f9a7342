package dev.sendlog.tools.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A steady load of messages through both APIs, as a careful client sends them: each with its own Idempotency-Key,
 * sent again with the same key after a failure (bounded). Every id answered with 202 is recorded; so is every
 * message that never got one. Among them, the message controls: one in ten carries a validity of two seconds (under the
 * faults some expire, and the check proves none of those was submitted after it expired or charged), one in ten is
 * cancelled right after its 202 (the check proves every cancel answered 200 ended CANCELLED, never submitted or
 * charged), and one in ten is scheduled three seconds ahead, half of those cancelled while they wait (the check proves
 * none reached the provider before its sendAt). One in ten, and half of the two-second ones, take the high priority
 * lane (its own shards, stream and workers): no loss and no double charge holds for them as for the rest.
 */
final class ChaosLoad implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<String> apis;
    private final int perSecond;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor();
    private final Set<String> accepted = ConcurrentHashMap.newKeySet();
    private final Set<String> neverAccepted = ConcurrentHashMap.newKeySet();
    private final Set<String> cancelled = ConcurrentHashMap.newKeySet();
    private final java.util.Map<Long, java.time.Instant> sendAts = new ConcurrentHashMap<>();
    private final AtomicLong cancelsRefused = new AtomicLong();
    private final AtomicLong cancelsFailed = new AtomicLong();
    private final AtomicLong failedRequests = new AtomicLong();
    private final AtomicLong sequence = new AtomicLong();
    private volatile boolean running = true;
    private Thread pacer;

    ChaosLoad(List<String> apis, int perSecond) {
        this.apis = List.copyOf(apis);
        this.perSecond = perSecond;
    }

    void start() {
        pacer = Thread.ofPlatform().name("chaos-load").start(() -> {
            long interval = 1_000_000_000L / perSecond;
            long next = System.nanoTime();
            while (running) {
                long n = sequence.incrementAndGet();
                clients.submit(() -> send(n));
                next += interval;
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    java.util.concurrent.locks.LockSupport.parkNanos(wait);
                }
            }
        });
    }

    private void send(long n) {
        String key = "chaos-" + n;
        String validity = n % 10 == 3 ? ",\"ttlSeconds\":2" : "";
        if (n % 10 == 5) {
            // The same sendAt on every retry of this key, so a retried request is the same request (idempotency).
            validity = ",\"sendAt\":\""
                    + sendAts.computeIfAbsent(
                            n,
                            k -> java.time.Instant.now()
                                    .plusSeconds(3)
                                    .truncatedTo(java.time.temporal.ChronoUnit.MILLIS))
                    + "\"";
        }
        // One in ten takes the high priority lane, and half of the two-second ones too: the lanes are checked like the
        // rest.
        String priority = n % 10 == 1 || n % 20 == 13 ? ",\"priority\":\"high\"" : "";
        // Odd ones go to +4916 numbers, which the chaos run routes to its second gateway first (sim2, then sim); the
        // rest are routed sim first, then sim2: failovers run both ways.
        String body = "{\"to\":\"+491" + (n % 2 == 1 ? "6" : "5") + String.format("%09d", n)
                + "\",\"body\":\"chaos message " + n + "\",\"reference\":\"" + key + "\"" + validity + priority + "}";
        for (int attempt = 0; attempt < 20; attempt++) {
            String api = apis.get((int) ((n + attempt) % apis.size()));
            try {
                HttpResponse<String> r = http.send(
                        HttpRequest.newBuilder(URI.create(api + "/v1/messages"))
                                .timeout(Duration.ofSeconds(15))
                                .header("Authorization", "Bearer demo-client-key")
                                .header("Content-Type", "application/json")
                                .header("Idempotency-Key", key)
                                .POST(HttpRequest.BodyPublishers.ofString(body))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 202) {
                    JsonNode json = JSON.readTree(r.body());
                    String id = json.get("id").asText();
                    accepted.add(id);
                    if (n % 10 == 7 || n % 20 == 15) {
                        cancel(api, id);
                    }
                    return;
                }
                failedRequests.incrementAndGet();
            } catch (Exception e) {
                failedRequests.incrementAndGet();
            }
            try {
                Thread.sleep(Math.min(5000, 200L << Math.min(attempt, 5)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        neverAccepted.add(key);
    }

    /**
     * Cancels at once, racing the poller and the workers: 200 (recorded: it must end CANCELLED), 409 (a worker claimed
     * it first) or a failure under the faults (not retried: whether it took effect, the log tells).
     */
    private void cancel(String api, String id) {
        try {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create(api + "/v1/messages/" + id + "/cancel"))
                            .timeout(Duration.ofSeconds(15))
                            .header("Authorization", "Bearer demo-client-key")
                            .POST(HttpRequest.BodyPublishers.noBody())
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 200) {
                cancelled.add(id);
            } else if (r.statusCode() == 409) {
                cancelsRefused.incrementAndGet();
            } else {
                cancelsFailed.incrementAndGet();
            }
        } catch (Exception e) {
            cancelsFailed.incrementAndGet();
        }
    }

    /** The ids whose cancel was answered 200. */
    Set<String> cancelled() {
        return cancelled;
    }

    long cancelsRefused() {
        return cancelsRefused.get();
    }

    long cancelsFailed() {
        return cancelsFailed.get();
    }

    Set<String> accepted() {
        return accepted;
    }

    Set<String> neverAccepted() {
        return neverAccepted;
    }

    long failedRequests() {
        return failedRequests.get();
    }

    long sent() {
        return sequence.get();
    }

    /** Stops sending new messages and waits for those in flight (their retries included). */
    @Override
    public void close() throws InterruptedException {
        running = false;
        if (pacer != null) {
            pacer.join();
        }
        clients.shutdown();
        clients.awaitTermination(3, java.util.concurrent.TimeUnit.MINUTES);
    }
}
