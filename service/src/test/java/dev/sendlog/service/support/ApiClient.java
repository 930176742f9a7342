package dev.sendlog.service.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Real HTTP to the service under test. */
public final class ApiClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String baseUrl;

    public ApiClient(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    public String baseUrl() {
        return baseUrl;
    }

    public ApiResponse post(String path, String key, String body, String... headers) {
        return send(builder(path, key, headers).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)));
    }

    public ApiResponse postBytes(String path, String key, String contentType, byte[] body, String... headers) {
        HttpRequest.Builder b = builder(path, key, headers);
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        return send(b.POST(HttpRequest.BodyPublishers.ofByteArray(body)));
    }

    public ApiResponse get(String path, String key) {
        return send(builder(path, key).GET());
    }

    public ApiResponse send(HttpRequest.Builder request) {
        try {
            HttpRequest built = request.timeout(Duration.ofSeconds(30)).build();
            HttpResponse<String> r;
            try {
                r = http.send(built, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            } catch (IOException e) {
                // A keep-alive connection the server closed after an early error answer (it had not read the body):
                // the request never reached the application, so sending it again on a new connection is safe.
                if (e.getMessage() == null || !e.getMessage().contains("received no bytes")) {
                    throw e;
                }
                r = http.send(built, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            }
            JsonNode json = null;
            String type = r.headers().firstValue("Content-Type").orElse("");
            if (type.contains("json") && !r.body().isEmpty()) {
                json = JSON.readTree(r.body());
            }
            return new ApiResponse(r.statusCode(), r.headers(), r.body(), json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public HttpRequest.Builder builder(String path, String key, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl + path));
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        for (int i = 0; i + 1 < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return b;
    }
}
