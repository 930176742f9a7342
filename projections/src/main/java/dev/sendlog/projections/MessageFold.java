package dev.sendlog.projections;

import dev.sendlog.events.Accepted;
import dev.sendlog.events.AttemptFailed;
import dev.sendlog.events.Cancelled;
import dev.sendlog.events.Claimed;
import dev.sendlog.events.Compacted;
import dev.sendlog.events.Dead;
import dev.sendlog.events.Expired;
import dev.sendlog.events.OutcomeUnknown;
import dev.sendlog.events.ProviderAccepted;
import dev.sendlog.events.Published;
import dev.sendlog.events.Receipt;
import dev.sendlog.events.ReceiptKind;
import dev.sendlog.events.Redriven;
import dev.sendlog.events.Rejected;
import dev.sendlog.events.Resolved;
import dev.sendlog.events.Scheduled;
import dev.sendlog.events.StoredEvent;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The pure fold {@code events -> MessageState}: no I/O, no clock, deterministic. Every event type is
 * a case of one switch over the sealed interface; an event that cannot follow the current phase throws
 * {@link InvalidTransitionException}.
 */
public final class MessageFold {
    private MessageFold() {}

    public static MessageState fold(List<StoredEvent> events) {
        if (events.isEmpty()) {
            throw new IllegalArgumentException("a message has at least one event");
        }
        MessageState state = MessageState.initial(events.getFirst().messageId());
        for (StoredEvent event : events) {
            state = evolve(state, event);
        }
        return state;
    }

    public static MessageState evolve(MessageState s, StoredEvent e) {
        if (!e.messageId().equals(s.messageId())) {
            throw new IllegalArgumentException("event of " + e.messageId() + " folded into " + s.messageId());
        }
        if (e.event() instanceof Compacted compacted) {
            return evolveCompacted(s, e, compacted);
        }
        // After a work event the next seq belongs to its publication: the next event may skip it (histories written
        // before the lean log also have an event straight after, when a claim won the seq before the PUBLISHED row).
        boolean skipsPublication =
                s.phase() == Phase.PENDING && !(e.event() instanceof Published) && e.seq() == s.seq() + 2;
        if (e.seq() != s.seq() + 1 && !skipsPublication) {
            throw invalid(
                    s,
                    e,
                    "expected seq " + (s.seq() + 1)
                            + (s.phase() == Phase.PENDING ? " (or " + (s.seq() + 2) + " past the publication)" : ""));
        }
        Draft d = new Draft(s, e);
        switch (e.event()) {
            case Accepted a -> {
                require(s.phase() == Phase.NONE, s, e, "ACCEPTED is the first event");
                d.tenant = a.tenant();
                d.gateway = a.gateway();
                d.acceptedAt = e.at();
                d.attempt = 1;
                d.workSeq = e.seq();
                d.to(Phase.PENDING, null);
            }
            case Scheduled sc -> {
                require(
                        s.phase() == Phase.PENDING && s.seq() == 1 && s.workSeq() == 1,
                        s,
                        e,
                        "SCHEDULED follows the acceptance at once");
                d.to(Phase.SCHEDULED, new Deadline(DeadlineKind.DUE, sc.sendAt()));
            }
            case Published p -> {
                require(s.phase() == Phase.PENDING, s, e, "only a pending attempt is published");
                require(
                        p.attempt() == s.attempt(),
                        s,
                        e,
                        "publishes attempt " + p.attempt() + " but " + s.attempt() + " is owed");
                d.publishes++;
                d.to(Phase.PUBLISHED, new Deadline(DeadlineKind.CONFIRM, p.confirmBy()));
            }
            case Claimed c -> {
                require(
                        s.phase() == Phase.PENDING || s.phase() == Phase.PUBLISHED,
                        s,
                        e,
                        "only an owed attempt is claimed");
                require(
                        c.attempt() == s.attempt(),
                        s,
                        e,
                        "claims attempt " + c.attempt() + " but " + s.attempt() + " is owed");
                d.claims++;
                d.to(Phase.CLAIMED, new Deadline(DeadlineKind.CLAIM, c.deadline()));
            }
            case ProviderAccepted pa
            when pa.part() > 1 -> {
                // A later part of a concatenated message: written in the same append as the parts before it.
                require(
                        s.phase() == Phase.SENT
                                && pa.attempt() == s.attempt()
                                && pa.parts() == s.parts()
                                && pa.part() == s.partIds().size() + 1
                                && pa.gateway().equals(s.gateway()),
                        s,
                        e,
                        "part " + pa.part() + " of " + pa.parts()
                                + " follows the parts before it, in the same attempt");
                d.partIds.add(pa.providerId());
            }
            case ProviderAccepted pa -> {
                require(
                        Decisions.shouldRecordAcceptance(s),
                        s,
                        e,
                        "the provider accepts a message once, never a rejected one, and an expired or cancelled one only"
                                + " when an earlier claim reached it");
                d.providerId = pa.providerId();
                d.parts = pa.parts();
                d.partIds.clear();
                d.partIds.add(pa.providerId());
                d.partsDelivered.clear();
                d.sentAt = e.at();
                d.lastError = null;
                d.to(Phase.SENT, null);
            }
            case AttemptFailed f -> {
                require(
                        s.phase() == Phase.CLAIMED && f.attempt() == s.attempt(),
                        s,
                        e,
                        "only the claimed attempt fails");
                d.lastError = f.error();
                d.gatewayMayHaveIt = true;
                d.to(Phase.RETRY_WAIT, new Deadline(DeadlineKind.RETRY, f.nextAttemptAt()));
            }
            case Rejected r -> {
                require(s.phase() == Phase.CLAIMED, s, e, "only a claimed attempt is rejected");
                d.lastError = r.lastError();
                d.to(Phase.REJECTED, null);
            }
            case Redriven r -> evolveRedriven(s, e, r, d);
            case Dead dead -> {
                require(
                        s.phase() == Phase.CLAIMED || s.phase() == Phase.PUBLISHED,
                        s,
                        e,
                        "a message dies when its last attempt fails or it was published too often unclaimed");
                d.lastError = dead.reason();
                d.to(Phase.DEAD, null);
            }
            case Receipt r -> evolveReceipt(s, e, r, d);
            case OutcomeUnknown u -> {
                boolean afterSend = s.phase() == Phase.SENT || s.phase() == Phase.IN_TRANSIT;
                require(
                        afterSend || s.phase() == Phase.CLAIMED,
                        s,
                        e,
                        "unknown follows a send without final receipt, or an expired last claim");
                d.lastError = u.reason();
                d.to(Phase.UNKNOWN, null);
            }
            case Resolved r -> {
                if (r.action() == Resolved.Action.APPLY) {
                    require(
                            s.providerId() != null && r.status() != ReceiptKind.INTERMEDIATE,
                            s,
                            e,
                            "a resolution applies a final status to a message the provider accepted");
                    if (r.status() == ReceiptKind.UNKNOWN) {
                        applyUnknown(s, d, resolvedUnknownError(r));
                    } else {
                        applyFinal(s, d, r.status(), r.note());
                    }
                }
            }
            case Expired x -> {
                require(
                        s.isWaiting(),
                        s,
                        e,
                        "only a message waiting for a worker expires (a claimed one is decided by"
                                + " the provider's answer)");
                d.lastError = "validity passed before it was submitted";
                d.to(Phase.EXPIRED, null);
            }
            case Cancelled x -> {
                require(s.isWaiting(), s, e, "only a message no worker holds is cancelled");
                d.lastError = null;
                d.to(Phase.CANCELLED, null);
            }
            case Compacted c -> throw new IllegalStateException("unreachable: handled above");
        }
        return d.build();
    }

    private static void evolveRedriven(MessageState s, StoredEvent e, Redriven r, Draft d) {
        switch (r.reason()) {
            case RETRY_DUE ->
                require(
                        s.phase() == Phase.RETRY_WAIT && r.attempt() == s.attempt() + 1,
                        s,
                        e,
                        "a due retry follows a failed attempt and owes the next one");
            case PUBLISH_TIMEOUT ->
                require(
                        s.phase() == Phase.PUBLISHED && r.attempt() == s.attempt(),
                        s,
                        e,
                        "an unclaimed publish is published again for the same attempt");
            case CLAIM_TIMEOUT -> {
                require(
                        s.phase() == Phase.CLAIMED && r.attempt() == s.attempt() + 1,
                        s,
                        e,
                        "an expired claim owes the next attempt");
                d.gatewayMayHaveIt = true;
            }
            case DUE ->
                require(
                        s.phase() == Phase.SCHEDULED && r.attempt() == s.attempt(),
                        s,
                        e,
                        "a scheduled message's due time owes its first attempt");
            case HANDED_BACK ->
                require(
                        s.phase() == Phase.CLAIMED && r.attempt() == s.attempt(),
                        s,
                        e,
                        "a claim given back before the provider was called owes the same attempt");
            case FAILED_OVER -> {
                require(
                        s.phase() == Phase.CLAIMED && r.attempt() == s.attempt(),
                        s,
                        e,
                        "a claimed attempt the gateway certainly did not take owes the same attempt on the next one");
                require(
                        !s.gatewayMayHaveIt(),
                        s,
                        e,
                        "a message never leaves a gateway that may have it (invariant 18)");
                require(!r.gateway().equals(s.gateway()), s, e, "a failover moves to another gateway");
                d.gateway = r.gateway();
                d.gatewayMayHaveIt = false;
            }
            case ADMIN ->
                require(
                        s.supportMayRedrive() && r.attempt() == s.attempt() + 1,
                        s,
                        e,
                        "support re-drives DEAD, UNKNOWN before send or RETRYING");
        }
        d.attempt = r.attempt();
        d.workSeq = e.seq();
        d.to(Phase.PENDING, null);
    }

    private static void evolveReceipt(MessageState s, StoredEvent e, Receipt r, Draft d) {
        require(s.providerHasIt(), s, e, "a receipt follows the provider's acceptance");
        d.receiptKeys.add(s.receiptKey(r.providerId(), r.providerStatus(), r.providerTimestamp()));
        d.lastReceipt = r.kind();
        if (r.kind() == ReceiptKind.DELIVERED && s.parts() > 1) {
            // A message of several parts is DELIVERED when every part is; until then a part's DELIVERED is news that
            // it is on its way. A receipt for an id that is none of its parts (matched by reference) counts for none.
            if (s.partIds().contains(r.providerId())) {
                d.partsDelivered.add(r.providerId());
            }
            if (d.partsDelivered.size() < s.parts()) {
                if (s.phase() == Phase.SENT) {
                    d.to(Phase.IN_TRANSIT, null);
                }
                return;
            }
        }
        switch (r.kind()) {
            case INTERMEDIATE -> {
                if (s.phase() == Phase.SENT) {
                    d.to(Phase.IN_TRANSIT, null);
                }
            }
            case UNKNOWN -> {
                if (s.phase() == Phase.SENT || s.phase() == Phase.IN_TRANSIT) {
                    d.lastError = "provider status " + r.providerStatus();
                    d.to(Phase.UNKNOWN, null);
                }
            }
            case DELIVERED, UNDELIVERED ->
                applyFinal(s, d, r.kind(), r.kind() == ReceiptKind.UNDELIVERED ? undeliveredError(r) : null);
        }
    }

    /** The first final answer wins; UNKNOWN still gives way to it. */
    private static void applyFinal(MessageState s, Draft d, ReceiptKind kind, String error) {
        if (s.phase() == Phase.DELIVERED || s.phase() == Phase.UNDELIVERED) {
            return;
        }
        d.lastError = error;
        d.to(kind == ReceiptKind.DELIVERED ? Phase.DELIVERED : Phase.UNDELIVERED, null);
    }

    /**
     * Support's "unknown" is not failed (invariant 7): it never undoes a final answer, and a final receipt that comes
     * later still moves it ({@link #evolveReceipt} takes receipts in UNKNOWN once the provider has the message).
     */
    private static void applyUnknown(MessageState s, Draft d, String error) {
        if (s.phase() == Phase.DELIVERED || s.phase() == Phase.UNDELIVERED) {
            return;
        }
        d.lastError = error;
        d.to(Phase.UNKNOWN, null);
    }

    /** Says who decided, by role only: clients read lastError too (the user is in the event's actor). */
    private static String resolvedUnknownError(Resolved r) {
        String error = "resolved as unknown by support";
        return r.note() == null || r.note().isBlank() ? error : error + ": " + r.note();
    }

    private static String undeliveredError(Receipt r) {
        return r.errorCode() == null ? r.providerStatus() : r.providerStatus() + " (" + r.errorCode() + ")";
    }

    private static MessageState evolveCompacted(MessageState s, StoredEvent e, Compacted c) {
        require(s.phase() == Phase.NONE, s, e, "a snapshot is the first event of what remains");
        MessageState folded = fold(c.events());
        if (folded.seq() != e.seq()) {
            throw invalid(s, e, "a snapshot takes the seq of the last event it holds, " + folded.seq());
        }
        return folded;
    }

    private static void require(boolean condition, MessageState s, StoredEvent e, String why) {
        if (!condition) {
            throw invalid(s, e, why);
        }
    }

    private static InvalidTransitionException invalid(MessageState s, StoredEvent e, String why) {
        return new InvalidTransitionException(s.messageId(), e.seq(), s.phase(), e.type(), why);
    }

    /** The mutable copy one fold step works on. */
    private static final class Draft {
        private final MessageState s;
        private final StoredEvent e;
        String tenant;
        String gateway;
        Phase phase;
        int attempt;
        int workSeq;
        int claims;
        int publishes;
        String providerId;
        java.time.Instant sentAt;
        java.time.Instant acceptedAt;
        String lastError;
        Deadline deadline;
        ReceiptKind lastReceipt;
        final Set<String> receiptKeys;
        boolean gatewayMayHaveIt;
        int parts;
        final java.util.List<String> partIds;
        final Set<String> partsDelivered;

        Draft(MessageState s, StoredEvent e) {
            this.s = s;
            this.e = e;
            tenant = s.tenant();
            gateway = s.gateway();
            phase = s.phase();
            attempt = s.attempt();
            workSeq = s.workSeq();
            claims = s.claims();
            publishes = s.publishes();
            providerId = s.providerId();
            sentAt = s.sentAt();
            acceptedAt = s.acceptedAt();
            lastError = s.lastError();
            deadline = s.deadline();
            lastReceipt = s.lastReceipt();
            receiptKeys = new HashSet<>(s.receiptKeys());
            gatewayMayHaveIt = s.gatewayMayHaveIt();
            parts = s.parts();
            partIds = new java.util.ArrayList<>(s.partIds());
            partsDelivered = new HashSet<>(s.partsDelivered());
        }

        void to(Phase next, Deadline nextDeadline) {
            phase = next;
            deadline = nextDeadline;
        }

        MessageState build() {
            return new MessageState(
                    s.messageId(),
                    tenant,
                    gateway,
                    phase,
                    e.seq(),
                    attempt,
                    workSeq,
                    claims,
                    publishes,
                    providerId,
                    sentAt,
                    acceptedAt,
                    e.at(),
                    lastError,
                    deadline,
                    lastReceipt,
                    receiptKeys,
                    gatewayMayHaveIt,
                    parts,
                    partIds,
                    partsDelivered);
        }
    }
}
