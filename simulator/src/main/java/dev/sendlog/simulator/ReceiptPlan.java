package dev.sendlog.simulator;

import java.net.URI;
import java.util.List;

/**
 * The callbacks for one accepted message, fixed when it was accepted, so a later configuration change does
 * not alter them.
 *
 * @param reference the submit's reference, for the log; sent only when {@code echoReference}
 */
record ReceiptPlan(
        String providerId,
        String reference,
        boolean echoReference,
        URI callbackUrl,
        List<Receipt> receipts,
        long delayMs,
        long spacingMs,
        int maxAttempts,
        String callbackSecret) {

    CallbackPayload payload(Receipt receipt) {
        return new CallbackPayload(
                providerId,
                echoReference ? reference : null,
                receipt.status(),
                receipt.timestamp(),
                receipt.errorCode());
    }
}
