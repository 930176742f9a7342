package dev.sendlog.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Real HTTP calls against a simulator, the way a provider adapter makes them. */
final class SimulatorClient implements AutoCloseable {
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final String baseUrl;

    SimulatorClient(ProviderSimulator simulator) {
        baseUrl = simulator.baseUrl();
    }

    static String body(String to, String text, String reference, String callbackUrl) {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("to", to);
        fields.put("body", text);
        if (reference != null) {
            fields.put("reference", reference);
        }
        if (callbackUrl != null) {
            fields.put("callbackUrl", callbackUrl);
        }
        try {
            return Json.MAPPER.writeValueAsString(fields);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    HttpResponse<String> submit(String key, String reference, String callbackUrl) throws Exception {
        return submitRaw("sim-token", key, body("+4915112345678", "Your code is 123456", reference, callbackUrl));
    }

    HttpResponse<String> submitRaw(String token, String key, String json) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + "/v1/submit"))
                .timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The provider id from an accepted submit's body. */
    static String providerId(HttpResponse<String> response) throws IOException {
        return Json.MAPPER.readTree(response.body()).path("id").asText();
    }

    /** The status query of a key: {@code GET /v1/submit/{key}} with the bearer token. */
    HttpResponse<String> status(String token, String key) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + "/v1/submit/" + key))
                .GET();
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> get(String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create(baseUrl + path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> send(String method, String path, String body) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create(baseUrl + path))
                        .method(method, HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    JsonNode stats() throws Exception {
        return Json.MAPPER.readTree(get("/v1/stats").body());
    }

    List<String> keys() throws Exception {
        return get("/v1/keys").body().lines().toList();
    }

    List<JsonNode> callbackLog() throws Exception {
        return ndjson("/v1/callbacks/log");
    }

    List<JsonNode> records() throws Exception {
        return ndjson("/v1/records");
    }

    private List<JsonNode> ndjson(String path) throws Exception {
        return get(path)
                .body()
                .lines()
                .map(line -> {
                    try {
                        return Json.MAPPER.readTree(line);
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                })
                .toList();
    }

    @Override
    public void close() {
        http.close();
    }
}
