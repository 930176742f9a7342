package dev.sendlog.projections;

import dev.sendlog.events.Accepted;
import dev.sendlog.events.AttemptFailed;
import dev.sendlog.events.Cancelled;
import dev.sendlog.events.Claimed;
import dev.sendlog.events.Dead;
import dev.sendlog.events.Expired;
import dev.sendlog.events.FinalStatus;
import dev.sendlog.events.MessageEvent;
import dev.sendlog.events.OutcomeUnknown;
import dev.sendlog.events.ProviderAccepted;
import dev.sendlog.events.Receipt;
import dev.sendlog.events.RedriveReason;
import dev.sendlog.events.Redriven;
import dev.sendlog.events.StoredEvent;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What happens next, as pure functions of a message's state. Every writer (poller, worker, timer,
 * callback worker, support) asks here and appends the answer with the expected next seq; if another
 * writer got there first, it re-reads and asks again.
 */
public final class Decisions {
    private Decisions() {}

    /**
     * A worker's claim of a job, or empty when the job is stale: another attempt, work published again since (a job of
     * an older publication of the same attempt), or already done.
     */
    public static Optional<Claimed> claim(
            MessageState s, int jobWorkSeq, int jobAttempt, String worker, Instant now, Limits limits) {
        boolean owed = s.phase() == Phase.PENDING || s.phase() == Phase.PUBLISHED;
        if (!owed || s.attempt() != jobAttempt || s.workSeq() != jobWorkSeq) {
            return Optional.empty();
        }
        return Optional.of(new Claimed(jobAttempt, worker, now.plus(limits.claimTimeout())));
    }

    /**
     * The status {@code event} makes final, written with it for search by status: empty when the message stays in
     * flight, or stays in the final status it had (a second final receipt changes nothing).
     */
    public static Optional<FinalStatus> finalStatusAfter(MessageState before, StoredEvent event) {
        MessageState after = MessageFold.evolve(before, event);
        MessageStatus status = after.status();
        if (!status.isFinal() || (before.phase() != Phase.NONE && before.status() == status)) {
            return Optional.empty();
        }
        return Optional.ofNullable(FinalStatus.ofName(status.name()));
    }

    /**
     * The work (the seq of the acceptance or of a REDRIVEN) whose claim the provider's acceptance completed, when the
     * message had moved on to newer work before that acceptance was recorded: the claim outlived its deadline, a timer
     * re-drove the message, and the worker's call had been taken after all. The newer work is then no longer owed (the
     * poller passes over it, something came after it), so no publication of its own ever watches the message; the
     * publication of the claimed work must. Empty for every other history, the usual one included (accepted under the
     * claim of its current work).
     */
    public static OptionalInt lateAcceptanceWork(List<StoredEvent> history) {
        int work = 0;
        int claimedWork = 0;
        int acceptedWork = 0;
        for (StoredEvent e : history) {
            switch (e.event()) {
                case Accepted a -> work = e.seq();
                case Redriven r -> work = e.seq();
                case Claimed c -> claimedWork = work;
                case ProviderAccepted pa when pa.part() == 1 -> acceptedWork = claimedWork;
                default -> {}
            }
        }
        return acceptedWork != 0 && acceptedWork != work ? OptionalInt.of(acceptedWork) : OptionalInt.empty();
    }

    /** After a transient provider failure of the claimed attempt: another try later, or DEAD at the limit. */
    public static MessageEvent afterTransientFailure(
            MessageState s, String error, Instant nextAttemptAt, Limits limits) {
        if (s.phase() != Phase.CLAIMED) {
            throw new IllegalStateException("message " + s.messageId() + " is " + s.phase() + ", not CLAIMED");
        }
        if (s.attempt() >= limits.maxAttempts()) {
            return new Dead(s.attempt(), "attempt limit " + limits.maxAttempts() + " reached; last error: " + error);
        }
        return new AttemptFailed(s.attempt(), error, nextAttemptAt);
    }

    /**
     * Whether the provider's acceptance still has to be recorded (it is recorded once, whichever attempt). An EXPIRED or
     * CANCELLED message was never claimed since; only a claim from before (one that outlived its deadline) can have
     * reached the provider, and then the provider's answer decides, as for any submit in flight: it is recorded and
     * charged, because the provider has it. Without any claim there is nothing the provider could have answered. A
     * SCHEDULED message has never been claimed (it is not even owed yet), so no answer is recorded for it.
     */
    public static boolean shouldRecordAcceptance(MessageState s) {
        boolean alreadyAccepted = s.providerHasIt();
        boolean endedUnsent = s.phase() == Phase.EXPIRED || s.phase() == Phase.CANCELLED;
        return !alreadyAccepted
                && s.phase() != Phase.REJECTED
                && s.phase() != Phase.NONE
                && s.phase() != Phase.SCHEDULED
                && !(endedUnsent && s.claims() == 0);
    }

    /**
     * EXPIRED when the message's validity has passed ({@code validUntil} at or before {@code now}) while it waits for a
     * worker: a worker asks at its claim (a retry is a claim too), a timer at the message's deadlines and at the validity
     * itself. A claimed attempt is not expired: it may be at the provider, whose answer decides (API.md). Empty when the
     * message has no validity, it has not passed, or the message is not waiting.
     */
    public static Optional<Expired> expiry(MessageState s, Instant validUntil, Instant now) {
        if (validUntil == null || now.isBefore(validUntil) || !s.isWaiting()) {
            return Optional.empty();
        }
        return Optional.of(new Expired());
    }

    /**
     * A cancel: only while no worker has ever claimed the message (waiting, with no claim in its history). API.md lists
     * RETRYING too, but also promises that a cancelled message is never submitted: once a worker claimed it, an attempt
     * whose answer was lost (a timeout, a reset connection) or a claim that outlived its deadline may have reached the
     * provider, and the log cannot tell which, so the promise wins and such a cancel is refused (409). Appended with the
     * expected seq, so a claim racing it for the same seq either wins (the cancel is refused) or loses (the worker finds
     * the job stale and never calls the provider).
     */
    public static Optional<Cancelled> cancel(MessageState s) {
        return s.isWaiting() && s.claims() == 0 ? Optional.of(new Cancelled()) : Optional.empty();
    }

    /**
     * What a timer appends for a message with a validity: EXPIRED once it has passed while the message waits, else what
     * its deadline asks for ({@link #onDeadline(MessageState, Instant, Limits)}).
     */
    public static Optional<MessageEvent> onDeadline(MessageState s, Instant validUntil, Instant now, Limits limits) {
        Optional<MessageEvent> expired = expiry(s, validUntil, now).map(x -> x);
        return expired.isPresent() ? expired : onDeadline(s, now, limits);
    }

    /** What a timer appends when the state's deadline has passed, or empty when nothing is due. */
    public static Optional<MessageEvent> onDeadline(MessageState s, Instant now, Limits limits) {
        Deadline deadline = s.deadline();
        if (deadline == null || deadline.at().isAfter(now)) {
            return Optional.empty();
        }
        return Optional.of(
                switch (deadline.kind()) {
                    case CONFIRM ->
                        s.publishes() >= limits.maxPublishes()
                                ? new Dead(s.attempt(), "published " + s.publishes() + " times and never claimed")
                                : new Redriven(s.attempt(), RedriveReason.PUBLISH_TIMEOUT);
                    case CLAIM ->
                        s.attempt() >= limits.maxAttempts()
                                ? new OutcomeUnknown("the claim of attempt " + s.attempt()
                                        + " expired at the attempt limit; the provider may or may not have the message")
                                : limits.isAtMostOnce(s.gateway())
                                        ? new OutcomeUnknown("the claim of attempt " + s.attempt()
                                                + " expired while gateway " + s.gateway()
                                                + " may have the message; it takes no idempotency key, so the message"
                                                + " is not submitted again")
                                        : new Redriven(s.attempt() + 1, RedriveReason.CLAIM_TIMEOUT);
                    case RETRY -> new Redriven(s.attempt() + 1, RedriveReason.RETRY_DUE);
                    case DUE -> new Redriven(s.attempt(), RedriveReason.DUE);
                });
    }

    /** A support user's re-drive: only DEAD, UNKNOWN before send, or RETRYING. */
    public static Optional<Redriven> adminRedrive(MessageState s) {
        return s.supportMayRedrive()
                ? Optional.of(new Redriven(s.attempt() + 1, RedriveReason.ADMIN))
                : Optional.empty();
    }

    /**
     * Moving a claimed attempt to {@code next} because its gateway certainly did not take it (invariant 18): only while
     * the claim is held, only to another gateway, and never from a gateway that may have the message from an earlier
     * claim (an attempt that failed with an unknown outcome, a claim that expired). Empty: the message stays where it is
     * and the refusal is an ordinary failed attempt.
     */
    public static Optional<Redriven> failover(MessageState s, String next, String error) {
        boolean allowed =
                s.phase() == Phase.CLAIMED && !s.gatewayMayHaveIt() && next != null && !next.equals(s.gateway());
        return allowed ? Optional.of(Redriven.failedOver(s.attempt(), next, error)) : Optional.empty();
    }

    /**
     * What the callback worker does with a receipt matched to {@code s}: by our reference ({@code byReference}, certain)
     * or by the latest use of its provider id. Beyond {@link #receipt}: it must come from the gateway the message went
     * out through and name one of the message's provider ids, and a match by provider id alone to a message already
     * final is ambiguous (UNKNOWN still takes a late final).
     */
    public static ReceiptDecision callbackReceipt(MessageState s, Receipt r, boolean byReference) {
        if (!s.gateway().equals(r.gateway())) {
            return ReceiptDecision.WRONG_GATEWAY;
        }
        if (s.providerId() != null && !s.partIds().contains(r.providerId())) {
            return ReceiptDecision.ID_MISMATCH;
        }
        ReceiptDecision decision = receipt(s, r);
        if (decision == ReceiptDecision.APPEND && !byReference && s.phase().isFinal() && s.phase() != Phase.UNKNOWN) {
            return ReceiptDecision.AMBIGUOUS;
        }
        return decision;
    }

    /** Whether a matched receipt is appended, ignored as a duplicate, or held until the acceptance is visible. */
    public static ReceiptDecision receipt(MessageState s, Receipt r) {
        if (!s.providerHasIt()) {
            return ReceiptDecision.HOLD;
        }
        if (s.receiptKeys().contains(s.receiptKey(r.providerId(), r.providerStatus(), r.providerTimestamp()))) {
            return ReceiptDecision.DUPLICATE;
        }
        return ReceiptDecision.APPEND;
    }

    /** Reconciliation: a sent message with no final receipt by the end of its window becomes UNKNOWN. */
    public static Optional<OutcomeUnknown> reconcile(MessageState s, Instant windowStartedBefore, String window) {
        boolean waiting = s.phase() == Phase.SENT || s.phase() == Phase.IN_TRANSIT;
        if (!waiting || s.sentAt() == null || !s.sentAt().isBefore(windowStartedBefore)) {
            return Optional.empty();
        }
        return Optional.of(new OutcomeUnknown("no final receipt within " + window + " of the provider's acceptance"));
    }
}
