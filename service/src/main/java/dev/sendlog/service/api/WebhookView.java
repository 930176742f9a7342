package dev.sendlog.service.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * A webhook registration as the API shows it: {@code secret} only in the answer that created it (the first PUT, a
 * rotation), absent otherwise. toString hides the secret, so that the view cannot carry it into a log line.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record WebhookView(String url, List<String> events, String secret) {
    @Override
    public String toString() {
        return "WebhookView[url=" + url + ", events=" + events + (secret == null ? "" : ", secret=redacted") + "]";
    }
}
