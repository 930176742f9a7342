package dev.sendlog.projections;

import dev.sendlog.events.ReceiptKind;
import java.time.Instant;
import java.util.Set;
import java.util.UUID;

/**
 * A message's state, derived by {@link MessageFold} from its events and never stored as the truth.
 *
 * @param seq          seq of the last event folded; the next append expects {@link #nextSeq()}
 * @param attempt      the provider attempt owed or in progress (1-based)
 * @param workSeq      seq of the latest work event (ACCEPTED or REDRIVEN): a publication names the work it published
 * @param claims       how many times a worker claimed the message (each may have reached the provider)
 * @param publishes    how many times the message was put on the send stream
 * @param sentAt       when the provider accepted it (start of the reconciliation window), or null
 * @param deadline     the timer of a non-final state, or null
 * @param receiptKeys  provider status + timestamp of every receipt folded, so a duplicate changes nothing
 * @param gatewayMayHaveIt a claim on the message's current {@code gateway} ended without a certain refusal (an
 *                     attempt failed or timed out, a claim expired): that gateway may have the message, so it never
 *                     moves to another (invariant 18); a failover to a new gateway starts it false again
 * @param parts        how many parts the provider took the message as (1 unless sent as concatenated parts)
 * @param partIds      the provider ids of the parts accepted so far, in order ({@code providerId} is the first's)
 * @param partsDelivered the parts with a DELIVERED receipt: a message of several parts is DELIVERED when all are
 */
public record MessageState(
        UUID messageId,
        String tenant,
        String gateway,
        Phase phase,
        int seq,
        int attempt,
        int workSeq,
        int claims,
        int publishes,
        String providerId,
        Instant sentAt,
        Instant acceptedAt,
        Instant updatedAt,
        String lastError,
        Deadline deadline,
        ReceiptKind lastReceipt,
        Set<String> receiptKeys,
        boolean gatewayMayHaveIt,
        int parts,
        java.util.List<String> partIds,
        Set<String> partsDelivered) {

    public MessageState {
        receiptKeys = Set.copyOf(receiptKeys);
        partIds = java.util.List.copyOf(partIds);
        partsDelivered = Set.copyOf(partsDelivered);
    }

    public static MessageState initial(UUID messageId) {
        return new MessageState(
                messageId,
                null,
                null,
                Phase.NONE,
                0,
                0,
                0,
                0,
                0,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                Set.of(),
                false,
                1,
                java.util.List.of(),
                Set.of());
    }

    public MessageStatus status() {
        return switch (phase) {
            case NONE -> throw new IllegalStateException("message " + messageId + " has no events");
            case SCHEDULED -> MessageStatus.SCHEDULED;
            case PENDING, PUBLISHED -> attempt > 1 ? MessageStatus.RETRYING : MessageStatus.ACCEPTED;
            case CLAIMED -> MessageStatus.SENDING;
            case RETRY_WAIT -> MessageStatus.RETRYING;
            case SENT -> MessageStatus.SENT;
            case IN_TRANSIT -> MessageStatus.IN_TRANSIT;
            case DELIVERED -> MessageStatus.DELIVERED;
            case UNDELIVERED -> MessageStatus.UNDELIVERED;
            case UNKNOWN -> MessageStatus.UNKNOWN;
            case REJECTED -> MessageStatus.REJECTED;
            case DEAD -> MessageStatus.DEAD;
            case EXPIRED -> MessageStatus.EXPIRED;
            case CANCELLED -> MessageStatus.CANCELLED;
        };
    }

    /**
     * The next seq an append for this message must use. A work event leaves the seq after it to its publication (a
     * row of its own, not an event row), so while the work is PENDING the next append skips it: a claim and any other
     * writer (a cancel, a timer) then race for the same seq whether or not they saw the publication.
     */
    public int nextSeq() {
        return phase == Phase.PENDING ? seq + 2 : seq + 1;
    }

    /**
     * Waiting for a worker, no claim held: waiting for its sendAt (SCHEDULED), an attempt owed (PENDING, PUBLISHED) or
     * a retry waiting for its time. A cancel, and an expiry, may end a message only here: a claimed attempt may be at
     * the provider, whose answer decides it.
     */
    public boolean isWaiting() {
        return phase == Phase.SCHEDULED
                || phase == Phase.PENDING
                || phase == Phase.PUBLISHED
                || phase == Phase.RETRY_WAIT;
    }

    /**
     * The provider has the message: it accepted it (SENT and later), including an UNKNOWN reached after that acceptance.
     * Receipts follow only this, and the acceptance is recorded only once.
     */
    public boolean providerHasIt() {
        return phase.isProviderAccepted() || (phase == Phase.UNKNOWN && providerId != null);
    }

    /** Whether support may re-drive the message: DEAD, UNKNOWN before any send, or waiting for a retry. */
    public boolean supportMayRedrive() {
        return phase == Phase.DEAD || isUnknownBeforeSend() || phase == Phase.RETRY_WAIT;
    }

    /** UNKNOWN reached without the provider ever answering (a claim expired at the attempt limit). */
    public boolean isUnknownBeforeSend() {
        return phase == Phase.UNKNOWN && providerId == null;
    }

    public static String receiptKey(String providerStatus, Instant providerTimestamp) {
        return providerStatus + "@" + providerTimestamp;
    }

    /**
     * The key that tells a duplicate receipt: status and time, and for a message of several parts also the part's id
     * (two parts delivered in the same minute are two receipts, not one sent twice).
     */
    public String receiptKey(String providerId, String providerStatus, Instant providerTimestamp) {
        String key = receiptKey(providerStatus, providerTimestamp);
        return parts > 1 ? providerId + "|" + key : key;
    }
}
