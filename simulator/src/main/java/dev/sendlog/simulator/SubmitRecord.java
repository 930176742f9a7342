package dev.sendlog.simulator;

import java.time.Instant;

/** What the simulator remembers of the first accepted submit of an idempotency key. */
record SubmitRecord(String idempotencyKey, String providerId, String reference, Instant recordedAt, String from,
                    String validUntil) {}
