package dev.sendlog.service.send.provider;

import java.time.Duration;

/** What a provider made of a submit. */
public sealed interface SubmitOutcome {
    /**
     * The provider has the message and gave it this id; a message sent as concatenated parts has the first part's id
     * here and the others' in {@code laterParts}, in order.
     */
    record Accepted(String providerId, java.util.List<String> laterParts) implements SubmitOutcome {
        public Accepted {
            laterParts = java.util.List.copyOf(laterParts);
        }

        public Accepted(String providerId) {
            this(providerId, java.util.List.of());
        }

        /** Every part's id, the first part's first. */
        public java.util.List<String> partIds() {
            java.util.List<String> all = new java.util.ArrayList<>(laterParts.size() + 1);
            all.add(providerId);
            all.addAll(laterParts);
            return all;
        }
    }

    /**
     * Refused for good (HTTP 400 or 422, an SMPP error status of the permanent kind): the message is REJECTED with the
     * provider's text. {@code protocol} names what {@code status} is ({@code HTTP} or {@code SMPP}).
     */
    record Permanent(String protocol, int status, String text) implements SubmitOutcome {
        public Permanent(int status, String text) {
            this("HTTP", status, text);
        }

        /** As the history shows it, for example {@code HTTP 422: bad number} or {@code SMPP 0x0000000B: ...}. */
        public String describe() {
            return "SMPP".equals(protocol)
                    ? protocol + " 0x" + String.format("%08X", status) + ": " + text
                    : protocol + " " + status + ": " + text;
        }
    }

    /**
     * Too many requests (429): the provider refused the message for now because of its rate, so it certainly does not
     * have it. Not a failed attempt: the gateway's rate is lowered for a while and the same attempt submits again.
     * {@code retryAfter} is the provider's Retry-After, or null.
     */
    record Throttled(String reason, Duration retryAfter) implements SubmitOutcome {}

    /**
     * Not now (5xx, timeout, refused or cut connection). The provider may still have the message: the retry carries
     * the same idempotency key. {@code retryAfter} is the provider's Retry-After, or null. {@code notTaken}: the
     * provider certainly does not have it (the connection was refused or never made, no connection was free to send
     * it on, or the provider answered 503, 401 or 403, a refusal before acceptance), so the message may pass to
     * another gateway (invariant 18); false whenever the request may have reached it (a timeout, a cut connection,
     * any other answer).
     */
    record Transient(String reason, Duration retryAfter, boolean notTaken) implements SubmitOutcome {
        /** A failure whose outcome is unknown: the provider may have the message. */
        public Transient(String reason, Duration retryAfter) {
            this(reason, retryAfter, false);
        }
    }

    /**
     * The provider may have the message and submitting it again could send it twice: a gateway without an idempotency
     * key (SMPP) whose answer did not come in time. Not retried: the message is UNKNOWN at once (never "failed"), and a
     * final receipt that still comes wins.
     */
    record Unknown(String reason) implements SubmitOutcome {}
}
