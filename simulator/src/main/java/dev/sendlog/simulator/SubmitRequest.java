package dev.sendlog.simulator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;

/**
 * The body of {@code POST /v1/submit}; {@code reference}, {@code callbackUrl}, {@code from} and {@code validUntil} (the
 * message's remaining validity, kept as sent) may be null.
 */
record SubmitRequest(String to, String body, String reference, URI callbackUrl, String from, String validUntil) {

    static SubmitRequest parse(byte[] json) throws InvalidSubmitException {
        JsonNode root;
        try {
            root = Json.MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new InvalidSubmitException("body is not JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new UncheckedIOException("reading a byte array cannot fail", e);
        }
        if (root == null || !root.isObject()) {
            throw new InvalidSubmitException("body must be a JSON object");
        }
        String to = requiredText(root, "to");
        String body = requiredText(root, "body");
        String reference = optionalText(root, "reference");
        String callbackUrl = optionalText(root, "callbackUrl");
        String from = optionalText(root, "from");
        String validUntil = optionalText(root, "validUntil");
        return new SubmitRequest(
                to, body, reference, callbackUrl == null ? null : parseCallbackUrl(callbackUrl), from, validUntil);
    }

    private static String requiredText(JsonNode root, String field) throws InvalidSubmitException {
        String value = optionalText(root, field);
        if (value == null || value.isEmpty()) {
            throw new InvalidSubmitException("'" + field + "' is required");
        }
        return value;
    }

    private static String optionalText(JsonNode root, String field) throws InvalidSubmitException {
        JsonNode node = root.get(field);
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isTextual()) {
            throw new InvalidSubmitException("'" + field + "' must be a string");
        }
        return node.asText();
    }

    private static URI parseCallbackUrl(String value) throws InvalidSubmitException {
        try {
            URI uri = new URI(value);
            String scheme = uri.getScheme();
            if (!("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme)) || uri.getHost() == null) {
                throw new InvalidSubmitException("'callbackUrl' must be an absolute http or https URL");
            }
            return uri;
        } catch (URISyntaxException e) {
            throw new InvalidSubmitException("'callbackUrl' is not a URL: " + e.getMessage());
        }
    }
}
