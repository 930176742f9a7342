package dev.sendlog.simulator;

import java.time.Instant;
import java.util.List;

/**
 * What the simulator remembers of the first accepted submit of an idempotency key, and what happens to the message
 * there: {@code history}, its receipts in event-time order, the i-th at {@code firstAt + i * spacingMs}. The status
 * query answers from it whether or not the callbacks were sent.
 */
record SubmitRecord(
        String idempotencyKey,
        String providerId,
        String reference,
        Instant recordedAt,
        String from,
        String validUntil,
        List<Receipt> history,
        Instant firstAt,
        long spacingMs) {

    /** The latest receipt whose event time has come by {@code now}; empty while nothing has happened yet. */
    java.util.Optional<Receipt> statusAt(Instant now) {
        Receipt latest = null;
        for (int i = 0; i < history.size(); i++) {
            if (firstAt.plusMillis(i * spacingMs).isAfter(now)) {
                break;
            }
            latest = history.get(i);
        }
        return java.util.Optional.ofNullable(latest);
    }
}
