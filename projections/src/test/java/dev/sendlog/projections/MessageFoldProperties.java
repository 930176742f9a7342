package dev.sendlog.projections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sendlog.events.Accepted;
import dev.sendlog.events.AttemptFailed;
import dev.sendlog.events.Cancelled;
import dev.sendlog.events.Claimed;
import dev.sendlog.events.Compacted;
import dev.sendlog.events.Dead;
import dev.sendlog.events.EventType;
import dev.sendlog.events.Expired;
import dev.sendlog.events.MessageEvent;
import dev.sendlog.events.OutcomeUnknown;
import dev.sendlog.events.ProviderAccepted;
import dev.sendlog.events.Published;
import dev.sendlog.events.Receipt;
import dev.sendlog.events.ReceiptKind;
import dev.sendlog.events.RedriveReason;
import dev.sendlog.events.Redriven;
import dev.sendlog.events.Rejected;
import dev.sendlog.events.Resolved;
import dev.sendlog.events.Scheduled;
import dev.sendlog.events.StoredEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Properties of the fold over thousands of generated histories. Each case is seeded; the seed is in
 * the test name, so {@code new Histories(seed)} replays a failure.
 */
class MessageFoldProperties {
    private static final int CASES = 3000;

    private static Stream<DynamicTest> forEachHistory(
            String property, java.util.function.Consumer<List<StoredEvent>> check) {
        return LongStream.range(0, CASES)
                .mapToObj(seed -> DynamicTest.dynamicTest(
                        property + " seed=" + seed, () -> check.accept(Histories.generate(seed, 40))));
    }

    @TestFactory
    Stream<DynamicTest> foldIsDeterministicAndStepwise() {
        return forEachHistory("deterministic", events -> {
            MessageState once = MessageFold.fold(events);
            assertThat(MessageFold.fold(events)).isEqualTo(once);
            MessageState stepwise = MessageFold.fold(events.subList(0, 1));
            for (StoredEvent e : events.subList(1, events.size())) {
                stepwise = MessageFold.evolve(stepwise, e);
            }
            assertThat(stepwise).isEqualTo(once);
            assertThat(once.seq()).isEqualTo(events.getLast().seq());
        });
    }

    @TestFactory
    Stream<DynamicTest> everyPrefixFoldsToTheStatusItsEventsImply() {
        return forEachHistory("implied status", events -> {
            for (int n = 1; n <= events.size(); n++) {
                MessageState s = MessageFold.fold(events.subList(0, n));
                assertThat(s.status())
                        .as("status after %s", events.subList(0, n))
                        .isEqualTo(impliedStatus(events.subList(0, n)));
                assertThat(s.phase()).isNotEqualTo(Phase.NONE);
                // A non-final state always has a way forward: a deadline, or work the poller tails.
                if (!s.phase().isFinal() && !s.phase().isProviderAccepted()) {
                    assertThat(s.phase() == Phase.PENDING || s.deadline() != null)
                            .as("phase %s of %s carries a timer", s.phase(), events.subList(0, n))
                            .isTrue();
                }
            }
        });
    }

    /**
     * The client status a history implies, read from its events by API.md's status rules alone (no phases, no fold), so
     * that the fold is checked against a second, independent reading rather than against itself.
     */
    private static MessageStatus impliedStatus(List<StoredEvent> events) {
        MessageStatus status = null;
        int attempt = 0;
        for (StoredEvent e : events) {
            boolean finalAnswer = status == MessageStatus.DELIVERED || status == MessageStatus.UNDELIVERED;
            switch (e.event()) {
                case Accepted a -> {
                    attempt = 1;
                    status = MessageStatus.ACCEPTED;
                }
                case Redriven r -> {
                    attempt = r.attempt();
                    status = attempt > 1 ? MessageStatus.RETRYING : MessageStatus.ACCEPTED;
                }
                case Published p -> {}
                case Claimed c -> status = MessageStatus.SENDING;
                case ProviderAccepted pa -> status = MessageStatus.SENT;
                case AttemptFailed f -> status = MessageStatus.RETRYING;
                case Rejected r -> status = MessageStatus.REJECTED;
                case Dead d -> status = MessageStatus.DEAD;
                case OutcomeUnknown u -> status = MessageStatus.UNKNOWN;
                case Receipt r ->
                    status = switch (r.kind()) {
                        case INTERMEDIATE -> status == MessageStatus.SENT ? MessageStatus.IN_TRANSIT : status;
                        case UNKNOWN ->
                            status == MessageStatus.SENT || status == MessageStatus.IN_TRANSIT
                                    ? MessageStatus.UNKNOWN
                                    : status;
                        case DELIVERED, UNDELIVERED ->
                            finalAnswer
                                    ? status
                                    : MessageStatus.valueOf(r.kind().name());
                    };
                case Resolved r -> {
                    if (r.action() == Resolved.Action.APPLY && !finalAnswer) {
                        status = MessageStatus.valueOf(r.status().name());
                    }
                }
                case Scheduled sc -> status = MessageStatus.SCHEDULED;
                case Expired x -> status = MessageStatus.EXPIRED;
                case Cancelled x -> status = MessageStatus.CANCELLED;
                case Compacted c -> throw new IllegalArgumentException("generated histories hold no snapshot");
            }
        }
        return status;
    }

    @TestFactory
    Stream<DynamicTest> theProviderAcceptsAtMostOnceAndAFinalReceiptIsNeverUndone() {
        return forEachHistory("one acceptance, finals stick", events -> {
            assertThat(events.stream()
                            .filter(e -> e.type() == EventType.PROVIDER_ACCEPTED)
                            .count())
                    .isLessThanOrEqualTo(1);
            MessageStatus firstFinal = null;
            for (int n = 1; n <= events.size(); n++) {
                MessageStatus status = MessageFold.fold(events.subList(0, n)).status();
                if (firstFinal != null) {
                    assertThat(status).isEqualTo(firstFinal);
                }
                if (status == MessageStatus.DELIVERED || status == MessageStatus.UNDELIVERED) {
                    firstFinal = status;
                }
            }
        });
    }

    @TestFactory
    Stream<DynamicTest> aResolutionAppliesItsStatusAndUnknownStillGivesWayToALateFinal() {
        return forEachHistory("resolution", events -> {
            MessageState s = MessageFold.fold(events.subList(0, 1));
            for (int n = 1; n <= events.size(); n++) {
                if (n > 1) {
                    s = MessageFold.evolve(s, events.get(n - 1));
                }
                if (s.providerId() == null) {
                    continue;
                }
                boolean finalBefore = s.phase() == Phase.DELIVERED || s.phase() == Phase.UNDELIVERED;
                StoredEvent last = events.get(n - 1);
                for (ReceiptKind applied :
                        List.of(ReceiptKind.DELIVERED, ReceiptKind.UNDELIVERED, ReceiptKind.UNKNOWN)) {
                    MessageState after = MessageFold.evolve(
                            s, next(last, "admin:ops-admin", new Resolved(1, Resolved.Action.APPLY, applied, null)));
                    MessageStatus expected = finalBefore ? s.status() : MessageStatus.valueOf(applied.name());
                    assertThat(after.status())
                            .as("%s applied to %s", applied, s.phase())
                            .isEqualTo(expected);
                    if (applied == ReceiptKind.UNKNOWN && !finalBefore) {
                        // Unknown is not failed: a final receipt that comes later still wins.
                        for (ReceiptKind late : List.of(ReceiptKind.DELIVERED, ReceiptKind.UNDELIVERED)) {
                            Receipt receipt = new Receipt(
                                    late,
                                    "sim",
                                    after.providerId(),
                                    "LATE_" + late,
                                    last.at().plusSeconds(1),
                                    null,
                                    1);
                            assertThat(Decisions.receipt(after, receipt)).isEqualTo(ReceiptDecision.APPEND);
                            StoredEvent r = new StoredEvent(
                                    last.messageId(), last.seq() + 2, last.at(), "callbacks-1", receipt);
                            assertThat(MessageFold.evolve(after, r).status())
                                    .as("late %s after UNKNOWN was applied", late)
                                    .isEqualTo(MessageStatus.valueOf(late.name()));
                        }
                    }
                }
                MessageState before = s;
                assertThatThrownBy(() -> MessageFold.evolve(
                                before,
                                next(
                                        last,
                                        "admin:ops-admin",
                                        new Resolved(1, Resolved.Action.APPLY, ReceiptKind.INTERMEDIATE, null))))
                        .isInstanceOf(InvalidTransitionException.class);
            }
        });
    }

    private static StoredEvent next(StoredEvent last, String actor, MessageEvent event) {
        return new StoredEvent(last.messageId(), last.seq() + 1, last.at(), actor, event);
    }

    @TestFactory
    Stream<DynamicTest> aSnapshotOfAnyPrefixFoldsToTheSameState() {
        return forEachHistory("snapshot equivalence", events -> {
            MessageState whole = MessageFold.fold(events);
            for (int cut = 1; cut <= events.size(); cut++) {
                List<StoredEvent> rest = new ArrayList<>();
                StoredEvent last = events.get(cut - 1);
                rest.add(new StoredEvent(
                        last.messageId(), last.seq(), last.at(), "compactor", new Compacted(events.subList(0, cut))));
                rest.addAll(events.subList(cut, events.size()));
                assertThat(MessageFold.fold(rest)).isEqualTo(whole);
            }
        });
    }

    /**
     * Scheduled send (issue 26): until its REDRIVEN with reason DUE, which comes at or after its sendAt, a scheduled
     * message is neither published nor claimed; only a cancel or an expiry may end it first, and then it is never
     * made due.
     */
    @TestFactory
    Stream<DynamicTest> aScheduledMessageIsNeitherPublishedNorClaimedBeforeItIsDue() {
        return forEachHistory("scheduled waits", events -> {
            if (events.size() < 2 || !(events.get(1).event() instanceof Scheduled scheduled)) {
                return;
            }
            boolean due = false;
            for (StoredEvent e : events.subList(2, events.size())) {
                if (!due) {
                    assertThat(e.type())
                            .as("before it is due, in %s", events)
                            .isIn(EventType.REDRIVEN, EventType.CANCELLED, EventType.EXPIRED);
                }
                if (e.event() instanceof Redriven r && r.reason() == RedriveReason.DUE) {
                    assertThat(due).as("made due once").isFalse();
                    assertThat(e.at()).as("due at or after its sendAt").isAfterOrEqualTo(scheduled.sendAt());
                    assertThat(r.attempt()).isEqualTo(1);
                    due = true;
                }
            }
        });
    }

    @TestFactory
    Stream<DynamicTest> anInvalidNextEventIsRejectedLoudly() {
        return forEachHistory("invalid rejected", events -> {
            MessageState s = MessageFold.fold(events);
            StoredEvent last = events.getLast();
            List<MessageEvent> invalid = new ArrayList<>();
            invalid.add(new Accepted("demo", "sim"));
            if (s.phase() != Phase.PENDING && s.phase() != Phase.PUBLISHED) {
                invalid.add(new Claimed(s.attempt(), "worker-9", last.at()));
            }
            if (!Decisions.shouldRecordAcceptance(s)) {
                invalid.add(new ProviderAccepted(Math.max(1, s.attempt()), "sim", "p9"));
            }
            if (!s.isWaiting()) {
                // Only a message no worker holds is cancelled or expires.
                invalid.add(new Cancelled());
                invalid.add(new Expired());
            }
            if (s.phase() != Phase.SCHEDULED) {
                // Only a scheduled message is made due, and only the acceptance is followed by SCHEDULED.
                invalid.add(new Redriven(Math.max(1, s.attempt()), RedriveReason.DUE));
            }
            if (s.seq() != 1) {
                invalid.add(new Scheduled(last.at()));
            }
            if (s.providerId() == null) {
                invalid.add(new Receipt(ReceiptKind.DELIVERED, "sim", "p9", "DELIVRD", last.at(), null, 1));
            }
            for (MessageEvent event : invalid) {
                StoredEvent next = new StoredEvent(last.messageId(), last.seq() + 1, last.at(), "test", event);
                assertThatThrownBy(() -> MessageFold.evolve(s, next))
                        .as("%s after %s", event.type(), s.phase())
                        .isInstanceOf(InvalidTransitionException.class);
            }
            StoredEvent gap = new StoredEvent(
                    last.messageId(),
                    last.seq() + 3,
                    last.at(),
                    "test",
                    new Receipt(ReceiptKind.INTERMEDIATE, "sim", "p9", "ENROUTE", last.at(), null, 1));
            assertThatThrownBy(() -> MessageFold.evolve(s, gap)).isInstanceOf(InvalidTransitionException.class);
            if (s.phase() != Phase.PENDING) {
                // Only the seq a work event leaves to its publication may be skipped.
                StoredEvent skip = new StoredEvent(
                        last.messageId(), last.seq() + 2, last.at(), "test", new OutcomeUnknown("test"));
                assertThatThrownBy(() -> MessageFold.evolve(s, skip)).isInstanceOf(InvalidTransitionException.class);
            }
        });
    }

    @TestFactory
    Stream<DynamicTest> aWorkEventsPublicationSeqIsSkippedOnlyWhenUnpublished() {
        return forEachHistory("publication seq", events -> {
            for (int n = 1; n < events.size(); n++) {
                MessageState before = MessageFold.fold(events.subList(0, n));
                StoredEvent next = events.get(n);
                if (next.seq() == before.seq() + 2) {
                    assertThat(before.phase())
                            .as("a skipped seq follows a work event")
                            .isEqualTo(Phase.PENDING);
                    assertThat(next.type()).isNotEqualTo(EventType.PUBLISHED);
                }
                if (next.type() == EventType.PUBLISHED) {
                    assertThat(next.seq())
                            .as("a publication takes the seq after its work event")
                            .isEqualTo(before.workSeq() + 1);
                }
            }
        });
    }

    /**
     * A cancel and a claim racing for one message, in either order, at every point of every history: both expect the
     * same seq, so the log keeps one of them (a unique violation refuses the other); the writer that lost reads again
     * and its decision is then empty, and its event would not fold. So exactly one wins, and a cancelled message is
     * never claimed.
     */
    @TestFactory
    Stream<DynamicTest> aCancelAndAClaimRacingForAMessageNeverBothWin() {
        return forEachHistory("cancel vs claim", events -> {
            for (int n = 1; n <= events.size(); n++) {
                MessageState s = MessageFold.fold(events.subList(0, n));
                StoredEvent last = events.get(n - 1);
                var claim = Decisions.claim(s, s.workSeq(), s.attempt(), "worker-1", last.at(), Histories.LIMITS);
                var cancel = Decisions.cancel(s);
                if (claim.isEmpty() || cancel.isEmpty()) {
                    continue;
                }
                int seq = s.nextSeq();
                StoredEvent claimed = new StoredEvent(s.messageId(), seq, last.at(), "worker-1", claim.get());
                StoredEvent cancelled = new StoredEvent(s.messageId(), seq, last.at(), "client:a", cancel.get());
                // The claim first: the cancel re-reads and is refused.
                MessageState afterClaim = MessageFold.evolve(s, claimed);
                assertThat(Decisions.cancel(afterClaim)).isEmpty();
                assertThatThrownBy(() -> MessageFold.evolve(
                                afterClaim,
                                new StoredEvent(s.messageId(), seq + 1, last.at(), "client:a", new Cancelled())))
                        .isInstanceOf(InvalidTransitionException.class);
                // The cancel first: the worker re-reads and finds its job stale; nothing can submit or charge it.
                MessageState afterCancel = MessageFold.evolve(s, cancelled);
                assertThat(afterCancel.status()).isEqualTo(MessageStatus.CANCELLED);
                assertThat(Decisions.claim(
                                afterCancel, s.workSeq(), s.attempt(), "worker-1", last.at(), Histories.LIMITS))
                        .isEmpty();
                assertThat(Decisions.shouldRecordAcceptance(afterCancel)).isEqualTo(s.claims() > 0);
                assertThatThrownBy(() -> MessageFold.evolve(
                                afterCancel,
                                new StoredEvent(s.messageId(), seq + 1, last.at(), "worker-1", claim.get())))
                        .isInstanceOf(InvalidTransitionException.class);
            }
        });
    }

    /**
     * Once any worker has claimed a message, no cancel is decided, whatever came after the claim (a failed attempt
     * waiting to retry, a claim that expired and was re-driven): that attempt may have reached the provider, and a
     * cancelled message is never submitted. Before any claim, a waiting message can always be cancelled.
     */
    @TestFactory
    Stream<DynamicTest> aMessageAWorkerEverClaimedIsNeverCancelled() {
        return forEachHistory("no cancel after a claim", events -> {
            for (int n = 1; n <= events.size(); n++) {
                MessageState s = MessageFold.fold(events.subList(0, n));
                boolean everClaimed = events.subList(0, n).stream().anyMatch(e -> e.type() == EventType.CLAIMED);
                if (everClaimed) {
                    assertThat(Decisions.cancel(s)).as("after %s", s.phase()).isEmpty();
                } else if (s.isWaiting()) {
                    assertThat(Decisions.cancel(s))
                            .as("waiting, never claimed: %s", s.phase())
                            .isPresent();
                }
            }
        });
    }

    @TestFactory
    Stream<DynamicTest> theGeneratorReachesEveryStatus() {
        // Guards the properties above against a generator that never leaves the happy path.
        java.util.Set<MessageStatus> seen = java.util.EnumSet.noneOf(MessageStatus.class);
        LongStream.range(0, CASES).forEach(seed -> {
            List<StoredEvent> events = Histories.generate(seed, 40);
            for (int n = 1; n <= events.size(); n++) {
                seen.add(MessageFold.fold(events.subList(0, n)).status());
            }
        });
        return Stream.of(DynamicTest.dynamicTest(
                "every status generated", () -> assertThat(seen).containsExactlyInAnyOrder(MessageStatus.values())));
    }
}
