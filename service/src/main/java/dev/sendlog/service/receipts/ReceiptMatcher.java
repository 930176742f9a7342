package dev.sendlog.service.receipts;

import static dev.sendlog.schema.jooq.Tables.PROVIDER_REFS;

import java.util.Optional;
import java.util.UUID;
import org.jooq.DSLContext;

/**
 * Which message a receipt is about. Our reference, when the provider echoes it, names the message directly.
 * Otherwise the gateway and provider id do, and since provider ids wrap, the most recent use of that id on
 * that gateway wins. Nothing is unique on a provider id alone.
 */
public final class ReceiptMatcher {
    private final DSLContext dsl;

    public ReceiptMatcher(DSLContext dsl) {
        this.dsl = dsl;
    }

    /** How a receipt was matched: by our reference (certain), or by the most recent use of its provider id. */
    public record Match(UUID messageId, boolean byReference) {
    }

    public Optional<Match> match(String gateway, String providerId, String reference) {
        if (reference != null) {
            try {
                return Optional.of(new Match(UUID.fromString(reference), true));
            } catch (IllegalArgumentException notOurs) {
                // Not one of our ids (a provider may echo something else): fall back to the provider id.
            }
        }
        if (providerId == null) {
            return Optional.empty();
        }
        return Optional.ofNullable(dsl.select(PROVIDER_REFS.MESSAGE_ID).from(PROVIDER_REFS)
                .where(PROVIDER_REFS.GATEWAY.eq(gateway)).and(PROVIDER_REFS.PROVIDER_ID.eq(providerId))
                .orderBy(PROVIDER_REFS.ACCEPTED_AT.desc())
                .limit(1)
                .fetchOne(PROVIDER_REFS.MESSAGE_ID)).map(id -> new Match(id, false));
    }
}
