package dev.sendlog.service.support;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpHeaders;

/** A response as a test sees it: status, headers, the raw body and, when it is JSON, the tree. */
public record ApiResponse(int status, HttpHeaders headers, String raw, JsonNode json) {
    public String header(String name) {
        return headers.firstValue(name).orElse(null);
    }

    public String contentType() {
        return header("Content-Type");
    }

    @Override
    public String toString() {
        return status + " " + raw;
    }
}
