package dev.sendlog.service.log;

import java.util.UUID;

/**
 * The one function per effect that computes its idempotency key. Every path that causes an effect
 * (the send path, recovery, reconciliation) calls these and nothing else, so the unique constraint on
 * the key can fire: two paths computing two keys for one effect is how double charges happen.
 */
public final class EffectKeys {
    private EffectKeys() {}

    /** The provider submit: the Idempotency-Key header of every submit of this message, on every attempt. */
    public static String providerSubmit(UUID messageId) {
        return "sendlog-" + messageId;
    }

    /**
     * The ledger charge: the ledger's primary key. A message is charged once, for all its parts, so the key is the
     * message's own id.
     */
    public static UUID charge(UUID messageId) {
        return messageId;
    }
}
