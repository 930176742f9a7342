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
import java.util.List;

/**
 * Real HTTP to the service under test. A client of the application port holds every exchange to the OpenAPI document
 * ({@link OpenApiContract}): an answer the document does not describe fails the test that got it. The admin port's
 * client ({@link #admin}) is not part of that document.
 */
public final class ApiClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String baseUrl;
    private final boolean contract;

    public ApiClient(String baseUrl) {
        this(baseUrl, true);
    }

    private ApiClient(String baseUrl, boolean contract) {
        this.baseUrl = baseUrl;
        this.contract = contract;
    }

    /** A client of the admin port (health, alarms, metrics, tasks): not held to the API's OpenAPI document. */
    public static ApiClient admin(String baseUrl) {
        return new ApiClient(baseUrl, false);
    }

    public String baseUrl() {
        return baseUrl;
    }

    public ApiResponse post(String path, String key, String body, String... headers) {
        return send(
                builder(path, key, headers)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)),
                body);
    }

    public ApiResponse postBytes(String path, String key, String contentType, byte[] body, String... headers) {
        HttpRequest.Builder b = builder(path, key, headers);
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        return send(b.POST(HttpRequest.BodyPublishers.ofByteArray(body)), new String(body, StandardCharsets.UTF_8));
    }

    public ApiResponse get(String path, String key) {
        return send(builder(path, key).GET());
    }

    public ApiResponse send(HttpRequest.Builder request) {
        return send(request, null);
    }

    /** Sends; {@code body} is the request's body as text when known, for the contract check. */
    public ApiResponse send(HttpRequest.Builder request, String body) {
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
            if (contract) {
                String requestType = built.headers().firstValue("Content-Type").orElse(null);
                List<String> violations = OpenApiContract.get()
                        .violations(
                                built.method(),
                                built.uri(),
                                requestType,
                                body,
                                r.statusCode(),
                                r.headers().map(),
                                r.body());
                if (!violations.isEmpty()) {
                    throw new AssertionError("the exchange does not keep the OpenAPI document (openapi.yaml):\n  "
                            + String.join("\n  ", violations) + "\n  answer: " + r.body());
                }
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
