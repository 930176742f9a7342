package dev.sendlog.service.core;

/**
 * A validated submission before it has an id.
 *
 * @param metadataJson   the metadata object as JSON text, or null
 * @param idempotencyKey the client's key, or null
 * @param requestHash    hash of the request's content, to tell a replay from a different request with the same key
 */
public record MessageDraft(String to, String body, String reference, String gateway, String metadataJson,
                           String idempotencyKey, byte[] requestHash) {
}
