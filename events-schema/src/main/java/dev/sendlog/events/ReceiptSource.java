package dev.sendlog.events;

/**
 * How a receipt was learned: told by the provider's callback, or asked by our status query (issue 32), so that the
 * history shows which. Stored in the receipt row's {@code code} column, which receipts did not use before: a row
 * written before it existed reads as CALLBACK.
 */
public enum ReceiptSource {
    CALLBACK,
    QUERY;

    /** A Jackson value filter that leaves CALLBACK out of the JSON: payloads and snapshots of callbacks stay as they were. */
    public static final class OmitCallback {
        @Override
        public boolean equals(Object value) {
            return value == null || value == CALLBACK;
        }

        @Override
        public int hashCode() {
            return 0;
        }
    }
}
