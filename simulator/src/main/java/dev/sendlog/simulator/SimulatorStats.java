package dev.sendlog.simulator;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * The answer of {@code GET /v1/stats}. A submit counts once it is authorised and well-formed (token, key and
 * body valid); requests refused with 401 or 400 count nowhere. Then:
 * {@code submits = transientErrors + permanentErrors + accepted} and
 * {@code accepted = uniqueKeys + duplicateSubmits}.
 *
 * @param submits            authorised, well-formed submit requests
 * @param uniqueKeys         distinct idempotency keys recorded
 * @param duplicateSubmits   recorded submits whose key had been recorded before (answered 200 with the old id)
 * @param accepted           submits that were recorded, whether answered 200/201 or dropped
 * @param transientErrors    submits answered 503 ({@code transientErrorRate}) or 429 ({@code maxPerSecond}), not recorded
 * @param permanentErrors    submits answered 422, not recorded
 * @param dropped            recorded submits whose connection was cut instead of answered
 * @param callbacksSent      callbacks the simulator decided to send (the lines of {@code /v1/callbacks/log})
 * @param callbacksDelivered callbacks a receiver acknowledged with 2xx
 * @param callbacksFailed    callbacks given up after the last attempt; the rest of callbacksSent are pending
 * @param callbackAttempts   callback requests made, retries included
 * @param maxConcurrentSubmits the most counted submits ever served at the same time (latency included)
 * @param statusQueries      authorised status queries ({@code GET /v1/submit/{key}}), whatever they answered
 * @param callbacksLost      accepted messages whose callbacks were never sent ({@code callbackLossRate})
 * @param throttled          submits answered 429 because they came above {@code maxPerSecond} (also in transientErrors)
 * @param maxConcurrentQueries the most status queries ever served at the same time ({@code queryLatencyMs} included)
 */
@JsonPropertyOrder({
    "submits",
    "uniqueKeys",
    "duplicateSubmits",
    "accepted",
    "transientErrors",
    "permanentErrors",
    "dropped",
    "callbacksSent",
    "callbacksDelivered",
    "callbacksFailed",
    "callbackAttempts",
    "maxConcurrentSubmits",
    "statusQueries",
    "callbacksLost",
    "throttled",
    "maxConcurrentQueries"
})
public record SimulatorStats(
        long submits,
        long uniqueKeys,
        long duplicateSubmits,
        long accepted,
        long transientErrors,
        long permanentErrors,
        long dropped,
        long callbacksSent,
        long callbacksDelivered,
        long callbacksFailed,
        long callbackAttempts,
        long maxConcurrentSubmits,
        long statusQueries,
        long callbacksLost,
        long throttled,
        long maxConcurrentQueries) {}
