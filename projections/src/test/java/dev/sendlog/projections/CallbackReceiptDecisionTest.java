package dev.sendlog.projections;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sendlog.events.Accepted;
import dev.sendlog.events.Claimed;
import dev.sendlog.events.ProviderAccepted;
import dev.sendlog.events.Receipt;
import dev.sendlog.events.ReceiptKind;
import dev.sendlog.events.StoredEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The callback worker's receipt rules, decided on the message's state alone (Decisions.callbackReceipt). */
class CallbackReceiptDecisionTest {
    private static final UUID ID = UUID.fromString("0192f3a0-0000-7000-8000-0000000000d1");
    private static final Instant T0 = Instant.parse("2026-12-06T08:00:00Z");

    private static MessageState sentAs(String... partIds) {
        List<StoredEvent> events = new ArrayList<>();
        events.add(new StoredEvent(ID, 1, T0, "api", new Accepted("demo", "smsc")));
        events.add(new StoredEvent(ID, 3, T0, "worker", new Claimed(1, "worker", T0.plusSeconds(30))));
        for (int i = 0; i < partIds.length; i++) {
            events.add(new StoredEvent(
                    ID, 4 + i, T0, "worker", new ProviderAccepted(1, "smsc", partIds[i], i + 1, partIds.length)));
        }
        return MessageFold.fold(events);
    }

    private static Receipt receipt(String gateway, String providerId, ReceiptKind kind) {
        return new Receipt(
                kind, gateway, providerId, kind == ReceiptKind.DELIVERED ? "DELIVRD" : "ENROUTE", T0, null, 1);
    }

    private static MessageState after(MessageState s, Receipt r) {
        return MessageFold.evolve(s, new StoredEvent(ID, s.nextSeq(), T0, "callbacks", r));
    }

    @Test
    void aReceiptForAnyPartOfTheMessageIsAppended() {
        MessageState s = sentAs("a1", "a2");
        assertThat(Decisions.callbackReceipt(s, receipt("smsc", "a2", ReceiptKind.DELIVERED), false))
                .isEqualTo(ReceiptDecision.APPEND);
    }

    @Test
    void anIdThatIsNoneOfTheMessagesIsAMismatch() {
        assertThat(Decisions.callbackReceipt(sentAs("a1", "a2"), receipt("smsc", "zz", ReceiptKind.DELIVERED), true))
                .isEqualTo(ReceiptDecision.ID_MISMATCH);
    }

    @Test
    void aReceiptFromAnotherGatewayThanTheMessageWentThroughIsParked() {
        assertThat(Decisions.callbackReceipt(sentAs("a1"), receipt("sim", "a1", ReceiptKind.DELIVERED), true))
                .isEqualTo(ReceiptDecision.WRONG_GATEWAY);
    }

    @Test
    void aMatchByProviderIdAloneToAFinalMessageIsAmbiguousButByReferenceItIsAppended() {
        MessageState delivered = after(sentAs("a1"), receipt("smsc", "a1", ReceiptKind.DELIVERED));
        Receipt late = new Receipt(ReceiptKind.DELIVERED, "smsc", "a1", "DELIVRD", T0.plusSeconds(60), null, 2);
        assertThat(Decisions.callbackReceipt(delivered, late, false)).isEqualTo(ReceiptDecision.AMBIGUOUS);
        assertThat(Decisions.callbackReceipt(delivered, late, true)).isEqualTo(ReceiptDecision.APPEND);
    }

    @Test
    void theSameReceiptAgainIsADuplicateAndOneBeforeTheAcceptanceIsHeld() {
        MessageState inTransit = after(sentAs("a1"), receipt("smsc", "a1", ReceiptKind.INTERMEDIATE));
        assertThat(Decisions.callbackReceipt(inTransit, receipt("smsc", "a1", ReceiptKind.INTERMEDIATE), true))
                .isEqualTo(ReceiptDecision.DUPLICATE);
        MessageState claimed = MessageFold.fold(List.of(
                new StoredEvent(ID, 1, T0, "api", new Accepted("demo", "smsc")),
                new StoredEvent(ID, 3, T0, "worker", new Claimed(1, "worker", T0.plusSeconds(30)))));
        assertThat(Decisions.callbackReceipt(claimed, receipt("smsc", "a1", ReceiptKind.DELIVERED), true))
                .isEqualTo(ReceiptDecision.HOLD);
    }
}
