package dev.sendlog.service.badinput;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A response as read off the socket: status, headers (names in lower case) and the decoded body. */
record RawResponse(int status, Map<String, List<String>> headers, byte[] body) {
    private static final ObjectMapper JSON = new ObjectMapper();

    String header(String name) {
        List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
        return values == null || values.isEmpty() ? null : values.getFirst();
    }

    String text() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /** The body as JSON, or null when it is not JSON. */
    JsonNode json() {
        try {
            return body.length == 0 ? null : JSON.readTree(body);
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public String toString() {
        return status + " " + header("content-type") + " " + Text.clip(text(), 400);
    }
}
