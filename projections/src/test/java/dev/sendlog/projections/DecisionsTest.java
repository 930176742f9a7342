package dev.sendlog.projections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import dev.sendlog.events.Published;
import dev.sendlog.events.Receipt;
import dev.sendlog.events.ReceiptKind;
import dev.sendlog.events.RedriveReason;
import dev.sendlog.events.Redriven;
import dev.sendlog.events.Rejected;
import dev.sendlog.events.Scheduled;
import dev.sendlog.events.StoredEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Every decision of a message's life, one rule per test, written given (a history) / when (the decision asked) / then
 * (the event it answers, or none). The property tests beside these (MessageFoldProperties, MultipartFoldProperties,
 * AtMostOnceTest) check the rules hold together over random histories; these name each rule on its own, so a change to
 * one fails a test that says which.
 */
class DecisionsTest {
    private static final UUID ID = UUID.fromString("0192f3a0-0000-7000-8000-0000000000e1");
    private static final Instant T0 = Instant.parse("2026-12-07T08:00:00Z");
    /** Three attempts, two publications, 30 s to confirm and to hold a claim; gateway "smsc" takes no key. */
    private static final Limits LIMITS =
            new Limits(3, 2, Duration.ofSeconds(30), Duration.ofSeconds(30), Set.of("smsc"));

    /** A history built event by event, each at the next seq, as the writers append them. */
    private static final class Given {
        private final List<StoredEvent> events = new ArrayList<>();
        private MessageState state;

        static Given accepted() {
            return acceptedOn("sim");
        }

        static Given acceptedOn(String gateway) {
            return new Given().then(new Accepted("demo", gateway));
        }

        Given then(MessageEvent event) {
            StoredEvent stored = new StoredEvent(ID, events.size() + 1, T0, "writer", event);
            events.add(stored);
            state = state == null ? MessageFold.fold(events) : MessageFold.evolve(state, stored);
            return this;
        }

        Given published() {
            return then(new Published(state.attempt(), 1, T0.plusSeconds(30), null));
        }

        Given claimed() {
            return then(new Claimed(state.attempt(), "worker-1", T0.plusSeconds(30)));
        }

        Given publishedAndClaimed() {
            return published().claimed();
        }

        Given failedOnce() {
            return then(new AttemptFailed(state.attempt(), "503", T0.plusSeconds(5)));
        }

        Given sent() {
            return then(new ProviderAccepted(state.attempt(), state.gateway(), "p-1", 1, 1));
        }

        Given receipt(ReceiptKind kind, String status) {
            return then(receiptOf(kind, status));
        }

        Receipt receiptOf(ReceiptKind kind, String status) {
            return new Receipt(kind, state.gateway(), "p-1", status, T0.plusSeconds(events.size()), null, 1);
        }

        MessageState state() {
            return state;
        }

        List<StoredEvent> events() {
            return List.copyOf(events);
        }
    }

    @Nested
    class Claim {
        @Test
        void givenPublishedWorkWhenItsWorkerClaimsItThenTheClaimHoldsForTheClaimTimeout() {
            MessageState s = Given.accepted().published().state();
            assertThat(Decisions.claim(s, s.workSeq(), s.attempt(), "worker-1", T0, LIMITS))
                    .contains(new Claimed(1, "worker-1", T0.plus(LIMITS.claimTimeout())));
        }

        @Test
        void givenAJobOfAnotherAttemptOrOfWorkPublishedAgainSinceWhenClaimedThenItIsStale() {
            MessageState s = Given.accepted().published().state();
            assertThat(Decisions.claim(s, s.workSeq(), s.attempt() + 1, "worker-1", T0, LIMITS))
                    .isEmpty();
            MessageState redriven = Given.accepted()
                    .published()
                    .then(new Redriven(1, RedriveReason.PUBLISH_TIMEOUT))
                    .published()
                    .state();
            assertThat(Decisions.claim(redriven, s.workSeq(), 1, "worker-1", T0, LIMITS))
                    .as("the job of the first publication")
                    .isEmpty();
        }

        @Test
        void givenAClaimedOrFinishedMessageWhenClaimedAgainThenNothing() {
            MessageState claimed = Given.accepted().publishedAndClaimed().state();
            assertThat(Decisions.claim(claimed, claimed.workSeq(), 1, "worker-2", T0, LIMITS))
                    .isEmpty();
            MessageState sent = Given.accepted().publishedAndClaimed().sent().state();
            assertThat(Decisions.claim(sent, sent.workSeq(), 1, "worker-2", T0, LIMITS))
                    .isEmpty();
        }
    }

    @Nested
    class AfterTransientFailure {
        @Test
        void givenAClaimBelowTheAttemptLimitWhenTheProviderFailsThenItIsTriedAgainLater() {
            MessageState s = Given.accepted().publishedAndClaimed().state();
            assertThat(Decisions.afterTransientFailure(s, "503", T0.plusSeconds(5), LIMITS))
                    .isEqualTo(new AttemptFailed(1, "503", T0.plusSeconds(5)));
        }

        @Test
        void givenTheLastAttemptWhenTheProviderFailsThenTheMessageIsDead() {
            Given g = Given.accepted();
            for (int attempt = 1; attempt < LIMITS.maxAttempts(); attempt++) {
                g.publishedAndClaimed().failedOnce().then(new Redriven(attempt + 1, RedriveReason.RETRY_DUE));
            }
            MessageState last = g.publishedAndClaimed().state();
            assertThat(last.attempt()).isEqualTo(3);
            assertThat(Decisions.afterTransientFailure(last, "503", T0, LIMITS))
                    .isInstanceOfSatisfying(
                            Dead.class, d -> assertThat(d.attempts()).isEqualTo(3));
        }

        @Test
        void givenNoClaimWhenAFailureIsReportedThenItIsABug() {
            MessageState s = Given.accepted().published().state();
            assertThatThrownBy(() -> Decisions.afterTransientFailure(s, "503", T0, LIMITS))
                    .isInstanceOf(IllegalStateException.class);
        }
    }

    @Nested
    class ShouldRecordAcceptance {
        @Test
        void givenAClaimWhenTheProviderAcceptsThenItIsRecordedOnceOnly() {
            Given g = Given.accepted().publishedAndClaimed();
            assertThat(Decisions.shouldRecordAcceptance(g.state())).isTrue();
            assertThat(Decisions.shouldRecordAcceptance(g.sent().state()))
                    .as("the provider has it already")
                    .isFalse();
        }

        @Test
        void givenAMessageThatWasNeverClaimedOrWasRefusedThenNoAcceptanceIsRecorded() {
            assertThat(Decisions.shouldRecordAcceptance(
                            Given.accepted().then(new Cancelled()).state()))
                    .isFalse();
            assertThat(Decisions.shouldRecordAcceptance(Given.accepted()
                            .then(new Scheduled(T0.plusSeconds(60)))
                            .state()))
                    .isFalse();
            assertThat(Decisions.shouldRecordAcceptance(Given.accepted()
                            .publishedAndClaimed()
                            .then(new Rejected(Rejected.STAGE_CHECK, "blocked recipient"))
                            .state()))
                    .isFalse();
        }

        @Test
        void givenAnExpiryAfterAClaimWhenTheLateAnswerSaysTakenThenTheProviderDecidesAndItIsRecorded() {
            MessageState s = Given.accepted()
                    .publishedAndClaimed()
                    .failedOnce()
                    .then(new Expired())
                    .state();
            assertThat(Decisions.shouldRecordAcceptance(s)).isTrue();
        }
    }

    @Nested
    class Expiry {
        @Test
        void givenAWaitingMessageWhenItsValidityHasPassedThenExpired() {
            MessageState s = Given.accepted().published().state();
            assertThat(Decisions.expiry(s, T0, T0)).contains(new Expired());
            assertThat(Decisions.expiry(s, T0.plusSeconds(1), T0)).as("not yet").isEmpty();
            assertThat(Decisions.expiry(s, null, T0)).as("no validity").isEmpty();
        }

        @Test
        void givenAClaimedAttemptWhenItsValidityPassesThenTheProvidersAnswerDecidesNotTheClock() {
            MessageState s = Given.accepted().publishedAndClaimed().state();
            assertThat(Decisions.expiry(s, T0, T0.plusSeconds(60))).isEmpty();
        }
    }

    @Nested
    class Cancel {
        @Test
        void givenAMessageNoWorkerEverClaimedWhenCancelledThenCancelled() {
            assertThat(Decisions.cancel(Given.accepted().state())).contains(new Cancelled());
            assertThat(Decisions.cancel(Given.accepted().published().state())).contains(new Cancelled());
            assertThat(Decisions.cancel(Given.accepted()
                            .then(new Scheduled(T0.plusSeconds(60)))
                            .state()))
                    .contains(new Cancelled());
        }

        @Test
        void givenAMessageOnceClaimedWhenCancelledThenRefusedEvenWhileItWaitsForARetry() {
            assertThat(Decisions.cancel(Given.accepted().publishedAndClaimed().state()))
                    .isEmpty();
            assertThat(Decisions.cancel(
                            Given.accepted().publishedAndClaimed().failedOnce().state()))
                    .as("the failed attempt may have reached the provider")
                    .isEmpty();
        }
    }

    @Nested
    class OnDeadline {
        @Test
        void givenNoDeadlinePassedWhenTheTimerLooksThenNothing() {
            MessageState s = Given.accepted().published().state();
            assertThat(Decisions.onDeadline(s, T0, LIMITS)).isEmpty();
        }

        @Test
        void givenAPublicationNeverClaimedWhenItsConfirmDeadlinePassesThenPublishedAgainUntilTheLimitThenDead() {
            MessageState once = Given.accepted().published().state();
            assertThat(Decisions.onDeadline(once, T0.plusSeconds(31), LIMITS))
                    .contains(new Redriven(1, RedriveReason.PUBLISH_TIMEOUT));
            MessageState twice = Given.accepted()
                    .published()
                    .then(new Redriven(1, RedriveReason.PUBLISH_TIMEOUT))
                    .published()
                    .state();
            assertThat(Decisions.onDeadline(twice, T0.plusSeconds(31), LIMITS))
                    .get()
                    .isInstanceOf(Dead.class);
        }

        @Test
        void givenAClaimThatOutlivedItsDeadlineThenTheNextAttemptWithAKeyOrUnknownWithout() {
            MessageState keyed = Given.accepted().publishedAndClaimed().state();
            assertThat(Decisions.onDeadline(keyed, T0.plusSeconds(31), LIMITS))
                    .contains(new Redriven(2, RedriveReason.CLAIM_TIMEOUT));
            MessageState unkeyed =
                    Given.acceptedOn("smsc").publishedAndClaimed().state();
            assertThat(Decisions.onDeadline(unkeyed, T0.plusSeconds(31), LIMITS))
                    .as("a gateway that takes no key is never sent to twice")
                    .get()
                    .isInstanceOf(OutcomeUnknown.class);
        }

        @Test
        void givenARetryWaitingWhenItsTimeComesThenTheNextAttempt() {
            MessageState s = Given.accepted().publishedAndClaimed().failedOnce().state();
            assertThat(Decisions.onDeadline(s, T0.plusSeconds(5), LIMITS))
                    .contains(new Redriven(2, RedriveReason.RETRY_DUE));
        }

        @Test
        void givenAScheduledMessageWhenItsSendAtComesThenItsFirstAttemptIsDue() {
            MessageState s =
                    Given.accepted().then(new Scheduled(T0.plusSeconds(60))).state();
            assertThat(Decisions.onDeadline(s, T0.plusSeconds(59), LIMITS)).isEmpty();
            assertThat(Decisions.onDeadline(s, T0.plusSeconds(60), LIMITS))
                    .contains(new Redriven(1, RedriveReason.DUE));
        }

        @Test
        void givenAValidityThatPassedWhileWaitingThenExpiredComesBeforeTheDeadlinesOwnAnswer() {
            MessageState s = Given.accepted().publishedAndClaimed().failedOnce().state();
            assertThat(Decisions.onDeadline(s, T0.plusSeconds(1), T0.plusSeconds(5), LIMITS))
                    .contains(new Expired());
        }
    }

    @Nested
    class AdminRedrive {
        @Test
        void givenADeadOrRetryingMessageWhenSupportRedrivesThenTheNextAttempt() {
            MessageState dead = Given.accepted()
                    .published()
                    .then(new Redriven(1, RedriveReason.PUBLISH_TIMEOUT))
                    .published()
                    .then(new Dead(1, "published 2 times and never claimed"))
                    .state();
            assertThat(Decisions.adminRedrive(dead)).contains(new Redriven(2, RedriveReason.ADMIN));
            MessageState retrying =
                    Given.accepted().publishedAndClaimed().failedOnce().state();
            assertThat(Decisions.adminRedrive(retrying)).contains(new Redriven(2, RedriveReason.ADMIN));
        }

        @Test
        void givenUnknownBeforeTheProviderEverAnsweredThenARedriveIsAllowedButNotOnceItWasSent() {
            MessageState unsent = Given.accepted()
                    .publishedAndClaimed()
                    .then(new OutcomeUnknown("claim expired at the limit"))
                    .state();
            assertThat(Decisions.adminRedrive(unsent)).isPresent();
            MessageState sentUnknown = Given.accepted()
                    .publishedAndClaimed()
                    .sent()
                    .then(new OutcomeUnknown("no final receipt"))
                    .state();
            assertThat(Decisions.adminRedrive(sentUnknown))
                    .as("the provider has it: another send could charge twice")
                    .isEmpty();
        }

        @Test
        void givenAMessageInFlightOrDeliveredThenNoRedrive() {
            assertThat(Decisions.adminRedrive(
                            Given.accepted().publishedAndClaimed().state()))
                    .isEmpty();
            assertThat(Decisions.adminRedrive(Given.accepted()
                            .publishedAndClaimed()
                            .sent()
                            .receipt(ReceiptKind.DELIVERED, "DELIVRD")
                            .state()))
                    .isEmpty();
        }
    }

    @Nested
    class Failover {
        @Test
        void givenAClaimOnAGatewayThatCertainlyRefusedWhenMovedToAnotherThenRedrivenThere() {
            MessageState s = Given.accepted().publishedAndClaimed().state();
            assertThat(Decisions.failover(s, "sim2", "422 unroutable"))
                    .contains(Redriven.failedOver(1, "sim2", "422 unroutable"));
            assertThat(Decisions.failover(s, "sim", "422"))
                    .as("the same gateway")
                    .isEmpty();
            assertThat(Decisions.failover(s, null, "422"))
                    .as("no other gateway")
                    .isEmpty();
        }

        @Test
        void givenAGatewayThatMayHaveTheMessageFromAnEarlierAttemptThenItNeverMoves() {
            MessageState s = Given.accepted()
                    .publishedAndClaimed()
                    .failedOnce()
                    .then(new Redriven(2, RedriveReason.RETRY_DUE))
                    .publishedAndClaimed()
                    .state();
            assertThat(Decisions.failover(s, "sim2", "422")).isEmpty();
        }

        @Test
        void givenNoClaimThenNoFailover() {
            assertThat(Decisions.failover(Given.accepted().published().state(), "sim2", "422"))
                    .isEmpty();
        }
    }

    @Nested
    class Reconcile {
        @Test
        void givenASentMessageWithoutAFinalWhenItsWindowEndsThenUnknown() {
            MessageState s = Given.accepted().publishedAndClaimed().sent().state();
            assertThat(Decisions.reconcile(s, T0.plusSeconds(1), "1 hour"))
                    .get()
                    .extracting(OutcomeUnknown::reason)
                    .asString()
                    .contains("1 hour");
            assertThat(Decisions.reconcile(s, T0, "1 hour"))
                    .as("the window has not ended")
                    .isEmpty();
        }

        @Test
        void givenAFinalOrAnUnsentMessageThenNothingToReconcile() {
            assertThat(Decisions.reconcile(
                            Given.accepted()
                                    .publishedAndClaimed()
                                    .sent()
                                    .receipt(ReceiptKind.DELIVERED, "DELIVRD")
                                    .state(),
                            T0.plusSeconds(60),
                            "1 hour"))
                    .isEmpty();
            assertThat(Decisions.reconcile(
                            Given.accepted().publishedAndClaimed().state(), T0.plusSeconds(60), "1 hour"))
                    .isEmpty();
        }
    }

    @Nested
    class FinalStatusAfter {
        @Test
        void givenASentMessageWhenItsFirstFinalReceiptComesThenThatStatusIsWrittenFinalAndOnlyOnce() {
            Given g = Given.accepted().publishedAndClaimed().sent();
            Receipt delivered = g.receiptOf(ReceiptKind.DELIVERED, "DELIVRD");
            StoredEvent first = new StoredEvent(ID, g.state().nextSeq(), T0, "callbacks", delivered);
            assertThat(Decisions.finalStatusAfter(g.state(), first)).contains(FinalStatus.DELIVERED);
            MessageState after = MessageFold.evolve(g.state(), first);
            Receipt again = new Receipt(ReceiptKind.DELIVERED, "sim", "p-1", "DELIVRD", T0.plusSeconds(99), null, 2);
            assertThat(Decisions.finalStatusAfter(after, new StoredEvent(ID, after.nextSeq(), T0, "callbacks", again)))
                    .as("already final with that status")
                    .isEmpty();
        }

        @Test
        void givenAnIntermediateReceiptThenNothingIsFinal() {
            Given g = Given.accepted().publishedAndClaimed().sent();
            StoredEvent enroute = new StoredEvent(
                    ID, g.state().nextSeq(), T0, "callbacks", g.receiptOf(ReceiptKind.INTERMEDIATE, "ENROUTE"));
            assertThat(Decisions.finalStatusAfter(g.state(), enroute)).isEmpty();
        }
    }

    @Nested
    class LateAcceptanceWork {
        @Test
        void givenAnAcceptanceUnderTheClaimOfTheCurrentWorkThenNone() {
            assertThat(Decisions.lateAcceptanceWork(
                            Given.accepted().publishedAndClaimed().sent().events()))
                    .isEmpty();
            Given retried = Given.accepted()
                    .publishedAndClaimed()
                    .failedOnce()
                    .then(new Redriven(2, RedriveReason.RETRY_DUE))
                    .publishedAndClaimed()
                    .sent();
            assertThat(Decisions.lateAcceptanceWork(retried.events())).isEmpty();
        }

        @Test
        void givenAClaimRedrivenBeforeItsAcceptanceWasRecordedThenTheClaimedWork() {
            // seq 1 the acceptance (the work of attempt 1), 2 published, 3 claimed, 4 re-driven at the claim's deadline
            Given late = Given.accepted()
                    .publishedAndClaimed()
                    .then(new Redriven(2, RedriveReason.CLAIM_TIMEOUT))
                    .then(new ProviderAccepted(1, "sim", "p-1", 1, 1));
            assertThat(late.state().workSeq()).isEqualTo(4);
            assertThat(Decisions.lateAcceptanceWork(late.events())).hasValue(1);
        }

        @Test
        void givenTheRedrivenWorkClaimedAndAcceptedInTurnThenNone() {
            Given again = Given.accepted()
                    .publishedAndClaimed()
                    .then(new Redriven(2, RedriveReason.CLAIM_TIMEOUT))
                    .publishedAndClaimed()
                    .sent();
            assertThat(Decisions.lateAcceptanceWork(again.events())).isEmpty();
        }
    }
}
