package dev.sendlog.service.badinput;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The property every answer must have: a 2xx, or a 4xx whose body is {@code application/problem+json} with
 * {@code type}, {@code title} and a {@code status} equal to the HTTP status. Never a 5xx, never anything else.
 */
final class ProblemProperty {
    private ProblemProperty() {}

    /** Why the response breaks the property, or null when it holds. */
    static String violation(RawResponse r) {
        if (r.status() >= 200 && r.status() < 300) {
            return null;
        }
        if (r.status() < 400 || r.status() >= 500) {
            return "status " + r.status() + " is neither 2xx nor 4xx";
        }
        String type = r.header("content-type");
        if (type == null || !type.startsWith("application/problem+json")) {
            return "a " + r.status() + " with Content-Type " + type + ", not application/problem+json";
        }
        JsonNode json = r.json();
        if (json == null || !json.isObject()) {
            return "a " + r.status() + " whose body is not a JSON object";
        }
        if (!json.path("type").isTextual() || json.path("type").asText().isBlank()) {
            return "a problem without type";
        }
        if (!json.path("title").isTextual() || json.path("title").asText().isBlank()) {
            return "a problem without title";
        }
        if (!json.path("status").isInt() || json.path("status").asInt() != r.status()) {
            return "a problem whose status " + json.path("status") + " is not the HTTP status " + r.status();
        }
        return null;
    }
}
