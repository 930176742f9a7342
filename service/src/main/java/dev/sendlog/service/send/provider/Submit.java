package dev.sendlog.service.send.provider;

/**
 * What is sent to a provider: the message, its sender id (null: the provider's default), the idempotency key of its
 * submit effect, and its validity (null: none), which the provider gets so that it too stops trying when it passes.
 */
public record Submit(
        String to,
        String body,
        String reference,
        String callbackUrl,
        String idempotencyKey,
        String from,
        java.time.Instant validUntil) {}
