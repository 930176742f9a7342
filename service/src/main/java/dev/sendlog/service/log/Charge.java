package dev.sendlog.service.log;

import java.time.Instant;
import java.util.UUID;

/**
 * The ledger row written with a PROVIDER_ACCEPTED event, in its transaction, only if the event won its seq. Keyed by
 * {@link dev.sendlog.service.log.EffectKeys#charge}; the tenant, gateway and provider id are the message's and the
 * event's facts, not repeated here.
 */
public record Charge(UUID messageId, int units, Instant at) {}
