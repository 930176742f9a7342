package dev.sendlog.simulator;

import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Everything a reset clears: recorded submits, the id counter, the counters and the callback log. A reset
 * swaps in a fresh instance, so callbacks still in flight update the old one and leave the new one clean.
 */
final class SimulatorState {
    private final Map<String, SubmitRecord> recordsByKey = new ConcurrentHashMap<>();
    private final AtomicLong idCounter = new AtomicLong();
    private final SimulatorCounters counters = new SimulatorCounters();
    private final Queue<CallbackLogEntry> callbackLog = new ConcurrentLinkedQueue<>();

    /** The outcome of recording a submit: the record of its key, and whether this submit created it. */
    record Recorded(SubmitRecord record, boolean created) {}

    /** Records the submit under its key, assigning the next id unless the key was recorded before. */
    Recorded record(
            String idempotencyKey,
            String reference,
            String from,
            String validUntil,
            long idWrapModulus,
            java.util.function.Function<Instant, java.util.List<Receipt>> history,
            long delayMs,
            long spacingMs) {
        boolean[] created = {false};
        SubmitRecord record = recordsByKey.computeIfAbsent(idempotencyKey, key -> {
            created[0] = true;
            String providerId = "p" + (idCounter.getAndIncrement() % idWrapModulus);
            Instant now = Instant.now();
            Instant firstAt = now.plusMillis(delayMs);
            return new SubmitRecord(
                    key, providerId, reference, now, from, validUntil, history.apply(firstAt), firstAt, spacingMs);
        });
        return new Recorded(record, created[0]);
    }

    /** The record of a key that was accepted, or null. */
    SubmitRecord find(String idempotencyKey) {
        return recordsByKey.get(idempotencyKey);
    }

    Collection<String> keys() {
        return recordsByKey.keySet();
    }

    Collection<SubmitRecord> records() {
        return recordsByKey.values();
    }

    SimulatorCounters counters() {
        return counters;
    }

    SimulatorStats stats() {
        return counters.snapshot(recordsByKey.size());
    }

    CallbackLogEntry logCallback(String id, String reference, String status, String timestamp) {
        CallbackLogEntry entry = new CallbackLogEntry(id, reference, status, timestamp);
        callbackLog.add(entry);
        counters.callbacksSent.increment();
        return entry;
    }

    Collection<CallbackLogEntry> callbackLog() {
        return callbackLog;
    }
}
