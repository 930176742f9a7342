package dev.sendlog.service.receipts;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jooq.DSLContext;

/**
 * Which message a receipt is about. Our reference, when the provider echoes it, names the message directly.
 * Otherwise the gateway and provider id do, and since provider ids wrap, the most recent use of that id on
 * that gateway wins. Nothing is unique on a provider id alone.
 */
public final class ReceiptMatcher {
    /**
     * The most recent use of each (gateway, provider id), in one round trip: the PROVIDER_ACCEPTED rows through their
     * partial index (one probe per day partition; a provider id repeats only when it wraps, so few rows come back).
     */
    private static final String LATEST_USES_SQL =
            """
            SELECT k.g, k.p, r.message_id
            FROM unnest(?::text[], ?::text[]) AS k(g, p)
            CROSS JOIN LATERAL (
                SELECT message_id FROM message_events
                WHERE {accepted} AND gateway = k.g AND provider_id = k.p
                ORDER BY at DESC, message_id DESC
                LIMIT 1
            ) r""".replace("{accepted}", dev.sendlog.events.LogPredicates.PROVIDER_ACCEPTED_UNQUALIFIED);

    private final DSLContext dsl;

    public ReceiptMatcher(DSLContext dsl) {
        this.dsl = dsl;
    }

    /** How a receipt was matched: by our reference (certain), or by the most recent use of its provider id. */
    public record Match(UUID messageId, boolean byReference) {}

    /** A provider id as used on one gateway. */
    public record ProviderKey(String gateway, String providerId) {}

    /** The message our reference names, when the provider echoed one of our ids. */
    public static Optional<Match> byReference(String reference) {
        if (reference == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Match(UUID.fromString(reference), true));
        } catch (IllegalArgumentException notOurs) {
            // Not one of our ids (a provider may echo something else): the provider id decides.
            return Optional.empty();
        }
    }

    /** For each key that was ever used, the message that used it last. */
    public Map<ProviderKey, UUID> latestUses(Collection<ProviderKey> keys) {
        Map<ProviderKey, UUID> found = new HashMap<>();
        if (keys.isEmpty()) {
            return found;
        }
        String[] gateways = keys.stream().map(ProviderKey::gateway).toArray(String[]::new);
        String[] ids = keys.stream().map(ProviderKey::providerId).toArray(String[]::new);
        dsl.connection(c -> {
            try (PreparedStatement ps = c.prepareStatement(LATEST_USES_SQL)) {
                ps.setArray(1, c.createArrayOf("text", gateways));
                ps.setArray(2, c.createArrayOf("text", ids));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        found.put(new ProviderKey(rs.getString(1), rs.getString(2)), rs.getObject(3, UUID.class));
                    }
                }
            }
        });
        return found;
    }
}
