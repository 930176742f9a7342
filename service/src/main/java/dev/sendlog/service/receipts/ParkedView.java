package dev.sendlog.service.receipts;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.UUID;

/**
 * Parked provider input as support sees it: the raw body (as text when it is valid UTF-8, else base64 in
 * {@code bodyBase64}), the gateway, the reason, the time, and how it was resolved, if it was.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ParkedView(
        long id,
        String gateway,
        String reason,
        Instant parkedAt,
        UUID messageId,
        String body,
        String bodyBase64,
        String resolution) {}
