package dev.sendlog.service.receipts;

import java.util.Map;

/** A callback job on the callback stream: the inbox row to process. The raw body stays in PostgreSQL. */
public record CallbackJob(long inboxId) {
    public Map<String, String> toFields() {
        return Map.of("i", Long.toString(inboxId));
    }

    public static CallbackJob fromFields(Map<String, String> f) {
        try {
            return new CallbackJob(Long.parseLong(f.get("i")));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a callback job: " + f, e);
        }
    }
}
