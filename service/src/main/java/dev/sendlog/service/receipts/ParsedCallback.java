package dev.sendlog.service.receipts;

import dev.sendlog.events.ReceiptKind;
import java.time.Instant;

/** A callback that parsed and mapped: everything needed to match it and record it. */
public record ParsedCallback(
        String providerId, String reference, String status, ReceiptKind kind, Instant timestamp, String errorCode) {}
