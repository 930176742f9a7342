package dev.sendlog.service.receipts;

import java.util.Locale;

/**
 * Why a callback was parked: a kind, which names its counter ({@code callbacks.parked.<kind>}) and says what support can
 * do about it, and the text stored with the row for the person who reads it. The kind is decided where the problem is
 * found, never read back out of the wording.
 */
public record ParkReason(Kind kind, String text) {
    public enum Kind {
        /** The body is not a JSON object. */
        NOT_JSON,
        /** A required field (id, status, timestamp) is absent, not a string, blank or too long. */
        MISSING_FIELD,
        /** A field holds text that cannot be stored as it came (a NUL, a lone surrogate): kept raw, not changed. */
        BAD_TEXT,
        /** The gateway's vocabulary does not know the status word. */
        UNMAPPED_STATUS,
        /** The gateway's timestamp format does not parse the timestamp. */
        BAD_TIMESTAMP,
        /** The callback came for a gateway this process does not have configured. */
        UNKNOWN_GATEWAY,
        /** No message matched within the hold window. */
        UNMATCHED,
        /** Matched only by a wrapping provider id to a message already final, within the hold window. */
        AMBIGUOUS,
        /** The matched message went through another gateway. */
        WRONG_GATEWAY,
        /** The matched message has another provider id. */
        ID_MISMATCH;

        /** The counter's suffix, e.g. {@code unmapped-status}. */
        public String metricName() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    public ParkReason {
        if (kind == null || text == null || text.isBlank()) {
            throw new IllegalArgumentException("a park reason has a kind and a text");
        }
    }

    public static ParkReason of(Kind kind, String text) {
        return new ParkReason(kind, text);
    }

    /** The same kind, with more said. */
    public ParkReason withSuffix(String more) {
        return new ParkReason(kind, text + more);
    }
}
