package dev.sendlog.bench.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.Map;

/** The control side of the provider simulator process: reset, count, and read what it recorded. */
final class Simulator {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String baseUrl;
    private final HttpClient http = HttpClient.newHttpClient();

    Simulator(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    String baseUrl() {
        return baseUrl;
    }

    /**
     * Sets how long each submit takes before it is answered (nothing else differs from the benchmark's configuration:
     * no errors, no receipts).
     */
    void latency(long millis) throws IOException, InterruptedException {
        send(HttpRequest.newBuilder(URI.create(baseUrl + "/v1/config"))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(configuration(millis))));
    }

    /** The simulator's configuration in the benchmark, with the given latency. */
    static String configuration(long latencyMillis) {
        return "{\"latencyMs\": " + latencyMillis + ", \"receiptMode\": \"NONE\"}";
    }

    void reset() throws IOException, InterruptedException {
        send(HttpRequest.newBuilder(URI.create(baseUrl + "/v1/reset")).POST(HttpRequest.BodyPublishers.noBody()));
    }

    /** Distinct idempotency keys recorded since the last reset. */
    long uniqueKeys() throws IOException, InterruptedException {
        return JSON.readTree(send(HttpRequest.newBuilder(URI.create(baseUrl + "/v1/stats"))
                        .GET()))
                .path("uniqueKeys")
                .asLong();
    }

    /** Duplicate submits (a key seen again) since the last reset. */
    long duplicateSubmits() throws IOException, InterruptedException {
        return JSON.readTree(send(HttpRequest.newBuilder(URI.create(baseUrl + "/v1/stats"))
                        .GET()))
                .path("duplicateSubmits")
                .asLong();
    }

    /** Reference to the epoch microseconds of its first accepted submit. */
    Map<String, Long> recordedAtByReference() throws IOException, InterruptedException {
        Map<String, Long> byReference = new HashMap<>();
        for (String line : send(HttpRequest.newBuilder(URI.create(baseUrl + "/v1/records"))
                        .GET())
                .split("\n")) {
            if (!line.isBlank()) {
                JsonNode record = JSON.readTree(line);
                byReference.put(
                        record.path("reference").asText(),
                        record.path("recordedAtMicros").asLong());
            }
        }
        return byReference;
    }

    private String send(HttpRequest.Builder request) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            throw new IOException("simulator answered " + response.statusCode() + ": " + response.body());
        }
        return response.body();
    }
}
