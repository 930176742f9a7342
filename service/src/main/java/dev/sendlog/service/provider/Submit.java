package dev.sendlog.service.provider;

/** What is sent to a provider: the message, its sender id (null: the provider's default) and the idempotency key of its submit effect. */
public record Submit(String to, String body, String reference, String callbackUrl, String idempotencyKey, String from) {
}
