package dev.sendlog.service.dispatch;

import java.time.Instant;
import java.util.UUID;

/** The ledger row written with a PROVIDER_ACCEPTED event, in its transaction, only if the event won its seq. */
public record Charge(UUID messageId, String tenant, String gateway, String providerId, int units, Instant at) {
}
