package dev.sendlog.service.send.provider;

import java.time.Duration;

/** What a provider's status query (API.md, "Status query") made of an idempotency key. */
public sealed interface StatusAnswer {
    /**
     * The provider accepted the key and gave it {@code providerId}; {@code body} is its answer as it came (id, status,
     * timestamp, errorCode in the gateway's vocabulary), mapped like a callback or parked with its raw bytes.
     */
    record Found(String providerId, byte[] body) implements StatusAnswer {}

    /** 404: the provider never accepted the key, so submitting it (again) is safe. */
    record NeverTaken() implements StatusAnswer {}

    /** 429, 5xx, a timeout, a refused or cut connection, or an answer without an id: ask again later. */
    record Failed(String reason, Duration retryAfter) implements StatusAnswer {}
}
