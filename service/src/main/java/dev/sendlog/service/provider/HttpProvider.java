package dev.sendlog.service.provider;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sendlog.service.config.GatewaySettings;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.concurrent.Executors;

/**
 * The generic HTTP adapter of API.md's provider contract: {@code POST {baseUrl}/v1/submit} with a bearer
 * token and the Idempotency-Key of the message, over pooled keep-alive connections with connect and
 * request timeouts.
 */
public final class HttpProvider implements Provider {
    private static final int MAX_TEXT = 500;

    private final String gateway;
    private final URI submitUri;
    private final String authorization;
    private final Duration requestTimeout;
    private final HttpClient http;
    private final ObjectMapper json = new ObjectMapper();

    public HttpProvider(String gateway, GatewaySettings settings) {
        this.gateway = gateway;
        this.submitUri = URI.create(settings.baseUrl.replaceAll("/+$", "") + "/v1/submit");
        this.authorization = "Bearer " + settings.token;
        this.requestTimeout = Duration.ofMillis(settings.requestTimeoutMs);
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofMillis(settings.connectTimeoutMs))
                .executor(Executors.newVirtualThreadPerTaskExecutor())
                .build();
    }

    @Override
    public SubmitOutcome submit(Submit submit) {
        ObjectNode body = json.createObjectNode()
                .put("to", submit.to())
                .put("body", submit.body())
                .put("reference", submit.reference())
                .put("callbackUrl", submit.callbackUrl());
        HttpRequest request = HttpRequest.newBuilder(submitUri)
                .timeout(requestTimeout)
                .header("Authorization", authorization)
                .header("Idempotency-Key", submit.idempotencyKey())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                .build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (HttpTimeoutException e) {
            return new SubmitOutcome.Transient(gateway + ": no answer within " + requestTimeout.toMillis() + " ms", null);
        } catch (IOException e) {
            return new SubmitOutcome.Transient(gateway + ": " + e.getClass().getSimpleName() + ": " + e.getMessage(), null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new SubmitOutcome.Transient(gateway + ": interrupted", null);
        }
        int status = response.statusCode();
        if (status == 200 || status == 201) {
            String id = providerId(response.body());
            return id == null
                    ? new SubmitOutcome.Transient(gateway + ": " + status + " without an id: " + truncate(response.body()), null)
                    : new SubmitOutcome.Accepted(id);
        }
        if (status == 400 || status == 422) {
            return new SubmitOutcome.Permanent(status, truncate(response.body()));
        }
        // 429, 5xx, and anything unexpected (401/403 of a misconfigured token): retried, never a silent rejection.
        return new SubmitOutcome.Transient(gateway + ": HTTP " + status + ": " + truncate(response.body()),
                retryAfter(response.headers().firstValue("Retry-After").orElse(null)));
    }

    private String providerId(String body) {
        try {
            JsonNode node = json.readTree(body);
            JsonNode id = node == null ? null : node.get("id");
            return id != null && id.isTextual() && !id.asText().isBlank() ? id.asText() : null;
        } catch (IOException e) {
            return null;
        }
    }

    static Duration retryAfter(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return Duration.ofSeconds(Math.max(0, Long.parseLong(value.trim())));
        } catch (NumberFormatException notSeconds) {
            try {
                ZonedDateTime at = ZonedDateTime.parse(value.trim(), DateTimeFormatter.RFC_1123_DATE_TIME);
                Duration d = Duration.between(ZonedDateTime.now(at.getZone()), at);
                return d.isNegative() ? Duration.ZERO : d;
            } catch (DateTimeParseException notADate) {
                return null;
            }
        }
    }

    private static String truncate(String s) {
        if (s == null) {
            return "";
        }
        return s.length() <= MAX_TEXT ? s : s.substring(0, MAX_TEXT) + "...";
    }
}
