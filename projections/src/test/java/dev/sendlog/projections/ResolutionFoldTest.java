package dev.sendlog.projections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sendlog.events.Accepted;
import dev.sendlog.events.Claimed;
import dev.sendlog.events.MessageEvent;
import dev.sendlog.events.OutcomeUnknown;
import dev.sendlog.events.ProviderAccepted;
import dev.sendlog.events.Published;
import dev.sendlog.events.Receipt;
import dev.sendlog.events.ReceiptKind;
import dev.sendlog.events.Resolved;
import dev.sendlog.events.StoredEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every status a support user may apply to parked input, folded: DELIVERED and UNDELIVERED are finals like a
 * receipt's; UNKNOWN is not failed (issue 24, item 1), so a final receipt that comes later still wins.
 */
class ResolutionFoldTest {
    private static final Instant T0 = Instant.parse("2026-11-30T09:00:00Z");

    private final UUID id = UUID.fromString("0192f3a0-0000-7000-8000-000000000001");
    private final List<StoredEvent> events = new ArrayList<>();

    private ResolutionFoldTest sent() {
        append("api", new Accepted("demo", "sim"));
        append("poller-1", new Published(1, 1, T0.plusSeconds(30)));
        append("worker-1", new Claimed(1, "worker-1", T0.plusSeconds(30)));
        append("worker-1", new ProviderAccepted(1, "sim", "p1"));
        return this;
    }

    private MessageState append(String actor, MessageEvent event) {
        events.add(new StoredEvent(id, events.size() + 1, T0.plusSeconds(events.size()), actor, event));
        return MessageFold.fold(events);
    }

    private MessageState resolve(ReceiptKind status, String note) {
        return append("admin:ops-admin", new Resolved(7, Resolved.Action.APPLY, status, note));
    }

    private MessageState receipt(ReceiptKind kind, String providerStatus) {
        return append(
                "callbacks-1",
                new Receipt(
                        kind,
                        "sim",
                        "p1",
                        providerStatus,
                        T0.plusSeconds(60 + events.size()),
                        kind == ReceiptKind.UNDELIVERED ? "011" : null,
                        1));
    }

    @Test
    void applyingDeliveredGivesDelivered() {
        MessageState s = sent().resolve(ReceiptKind.DELIVERED, null);
        assertThat(s.status()).isEqualTo(MessageStatus.DELIVERED);
        assertThat(s.lastError()).isNull();
    }

    @Test
    void applyingUndeliveredGivesUndeliveredWithTheNote() {
        MessageState s = sent().resolve(ReceiptKind.UNDELIVERED, "provider says: number ported");
        assertThat(s.status()).isEqualTo(MessageStatus.UNDELIVERED);
        assertThat(s.lastError()).isEqualTo("provider says: number ported");
    }

    @Test
    void applyingUnknownGivesUnknownNotUndelivered() {
        MessageState s = sent().resolve(ReceiptKind.UNKNOWN, null);
        assertThat(s.status()).isEqualTo(MessageStatus.UNKNOWN);
        assertThat(s.lastError()).isEqualTo("resolved as unknown by support");
        assertThat(resolve(ReceiptKind.UNKNOWN, "asked the provider").lastError())
                .isEqualTo("resolved as unknown by support: asked the provider");
    }

    @Test
    void applyingUnknownToAMessageInTransitGivesUnknown() {
        sent().receipt(ReceiptKind.INTERMEDIATE, "ENROUTE");
        assertThat(resolve(ReceiptKind.UNKNOWN, null).status()).isEqualTo(MessageStatus.UNKNOWN);
    }

    @ParameterizedTest
    @EnumSource(
            value = ReceiptKind.class,
            names = {"DELIVERED", "UNDELIVERED"})
    void aLateFinalReceiptStillWinsAfterAResolutionAsUnknown(ReceiptKind late) {
        sent().resolve(ReceiptKind.UNKNOWN, null);
        MessageState s = receipt(late, late == ReceiptKind.DELIVERED ? "DELIVRD" : "UNDELIV");
        assertThat(s.status())
                .isEqualTo(late == ReceiptKind.DELIVERED ? MessageStatus.DELIVERED : MessageStatus.UNDELIVERED);
        assertThat(s.lastError()).isEqualTo(late == ReceiptKind.DELIVERED ? null : "UNDELIV (011)");
        assertThat(Decisions.receipt(
                        s, new Receipt(ReceiptKind.DELIVERED, "sim", "p1", "DELIVRD", T0.plusSeconds(999), null, 2)))
                .as("and then the usual rules hold")
                .isEqualTo(ReceiptDecision.APPEND);
    }

    @ParameterizedTest
    @EnumSource(
            value = ReceiptKind.class,
            names = {"DELIVERED", "UNDELIVERED"})
    void aLateFinalResolutionStillWinsAfterAResolutionAsUnknown(ReceiptKind late) {
        sent().resolve(ReceiptKind.UNKNOWN, null);
        assertThat(resolve(late, null).status())
                .isEqualTo(late == ReceiptKind.DELIVERED ? MessageStatus.DELIVERED : MessageStatus.UNDELIVERED);
    }

    @Test
    void applyingUnknownAfterReconciliationKeepsUnknownAndALateReceiptStillWins() {
        sent().append("reconciler", new OutcomeUnknown("no final receipt within PT48H of the provider's acceptance"));
        assertThat(resolve(ReceiptKind.UNKNOWN, null).status()).isEqualTo(MessageStatus.UNKNOWN);
        assertThat(receipt(ReceiptKind.DELIVERED, "DELIVRD").status()).isEqualTo(MessageStatus.DELIVERED);
    }

    @ParameterizedTest
    @EnumSource(
            value = ReceiptKind.class,
            names = {"DELIVERED", "UNDELIVERED", "UNKNOWN"})
    void noResolutionUndoesAFinalReceipt(ReceiptKind applied) {
        sent().receipt(ReceiptKind.DELIVERED, "DELIVRD");
        MessageState s = resolve(applied, "too late");
        assertThat(s.status()).isEqualTo(MessageStatus.DELIVERED);
        assertThat(s.lastError()).isNull();
    }

    @Test
    void anIntermediateStatusCannotBeApplied() {
        sent();
        MessageState before = MessageFold.fold(events);
        StoredEvent intermediate = new StoredEvent(
                id,
                before.nextSeq(),
                T0.plusSeconds(99),
                "admin:ops-admin",
                new Resolved(7, Resolved.Action.APPLY, ReceiptKind.INTERMEDIATE, null));
        assertThatThrownBy(() -> MessageFold.evolve(before, intermediate))
                .isInstanceOf(InvalidTransitionException.class);
    }

    @Test
    void aDiscardChangesNoStatus() {
        sent();
        MessageState s = append("admin:ops-admin", new Resolved(7, Resolved.Action.DISCARD, null, "test noise"));
        assertThat(s.status()).isEqualTo(MessageStatus.SENT);
    }
}
