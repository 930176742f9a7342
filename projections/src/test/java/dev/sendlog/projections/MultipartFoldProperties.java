package dev.sendlog.projections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sendlog.events.Accepted;
import dev.sendlog.events.Claimed;
import dev.sendlog.events.Compacted;
import dev.sendlog.events.MessageEvent;
import dev.sendlog.events.ProviderAccepted;
import dev.sendlog.events.Receipt;
import dev.sendlog.events.ReceiptKind;
import dev.sendlog.events.StoredEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * A message sent as concatenated parts (issue 28) folds its parts' receipts: DELIVERED when every part is, UNDELIVERED
 * when any part is (the first final answer wins), and still waiting, then UNKNOWN at the reconciliation window, while
 * parts are missing. Checked over generated receipt streams with the parts in any order, duplicates (the same receipt
 * again, which the callback worker drops as {@link Decisions#receipt} says) and parts whose receipt never comes,
 * against an oracle that reads the stream alone; the fold of a snapshot of the history gives the same state.
 */
class MultipartFoldProperties {
    private static final int CASES = 2000;
    private static final Instant T0 = Instant.parse("2026-12-06T08:00:00Z");

    private static final class Builder {
        final UUID id;
        final List<StoredEvent> events = new ArrayList<>();
        MessageState state;
        Instant now = T0;

        Builder(UUID id) {
            this.id = id;
        }

        void append(MessageEvent e) {
            int seq = state == null ? 1 : state.nextSeq();
            StoredEvent stored = new StoredEvent(id, seq, now, "test", e);
            state = state == null ? MessageFold.fold(List.of(stored)) : MessageFold.evolve(state, stored);
            events.add(stored);
            now = now.plusMillis(10);
        }
    }

    private static Builder accepted(UUID id, int parts) {
        Builder b = new Builder(id);
        b.append(new Accepted("demo", "smsc"));
        b.append(new Claimed(1, "worker", T0.plusSeconds(30)));
        for (int p = 1; p <= parts; p++) {
            b.append(new ProviderAccepted(1, "smsc", "m" + p, p, parts));
        }
        return b;
    }

    @TestFactory
    Stream<DynamicTest> thePartsReceiptsFoldToTheStatusTheOracleReads() {
        return LongStream.range(0, CASES)
                .mapToObj(seed -> DynamicTest.dynamicTest("multipart seed=" + seed, () -> check(seed)));
    }

    private static void check(long seed) {
        Random random = new Random(seed);
        int parts = 2 + random.nextInt(4);
        Builder b = accepted(new UUID(0x0192_f3a0_0000_7000L, 0x8000_0000_0000_0000L | seed), parts);
        assertThat(b.state.status()).isEqualTo(MessageStatus.SENT);
        assertThat(b.state.partIds()).hasSize(parts);
        // The oracle: which parts were delivered, and the first final answer, read from the receipts appended alone.
        Set<String> delivered = new HashSet<>();
        MessageStatus oracleFinal = null;
        boolean unknownByWindow = false;
        List<Receipt> appended = new ArrayList<>();
        int steps = 1 + random.nextInt(3 * parts + 3);
        for (int i = 0; i < steps; i++) {
            Receipt r;
            if (!appended.isEmpty() && random.nextInt(5) == 0) {
                r = appended.get(random.nextInt(appended.size())); // the same receipt again
            } else {
                int roll = random.nextInt(10);
                ReceiptKind kind = roll < 6
                        ? ReceiptKind.DELIVERED
                        : roll < 8
                                ? ReceiptKind.INTERMEDIATE
                                : roll < 9 ? ReceiptKind.UNDELIVERED : ReceiptKind.UNKNOWN;
                String status = switch (kind) {
                    case DELIVERED -> "DELIVRD";
                    case INTERMEDIATE -> "ENROUTE";
                    case UNDELIVERED -> "UNDELIV";
                    case UNKNOWN -> "UNKNOWN";
                };
                // Two parts delivered in the same minute: the same status and time, told apart by the part's id.
                Instant at = T0.plusSeconds(60L * random.nextInt(2));
                r = new Receipt(kind, "smsc", "m" + (1 + random.nextInt(parts)), status, at, null, 1 + i);
            }
            if (Decisions.receipt(b.state, r) != ReceiptDecision.APPEND) {
                continue; // a duplicate: the callback worker drops it
            }
            b.append(r);
            appended.add(r);
            if (oracleFinal == null) {
                if (r.kind() == ReceiptKind.UNDELIVERED) {
                    oracleFinal = MessageStatus.UNDELIVERED;
                } else if (r.kind() == ReceiptKind.DELIVERED
                        && delivered.add(r.providerId())
                        && delivered.size() == parts) {
                    oracleFinal = MessageStatus.DELIVERED;
                } else if (r.kind() == ReceiptKind.UNKNOWN) {
                    unknownByWindow = true;
                }
            }
            if (random.nextInt(8) == 0 && oracleFinal == null) {
                // The reconciliation window ends with parts missing: UNKNOWN, and a later final still wins.
                Decisions.reconcile(b.state, b.now.plusSeconds(1), "PT48H").ifPresent(b::append);
                unknownByWindow = b.state.status() == MessageStatus.UNKNOWN;
            }
            MessageStatus expected = oracleFinal != null
                    ? oracleFinal
                    : unknownByWindow
                            ? MessageStatus.UNKNOWN
                            : delivered.isEmpty()
                                            && appended.stream().noneMatch(x -> x.kind() == ReceiptKind.INTERMEDIATE)
                                    ? MessageStatus.SENT
                                    : MessageStatus.IN_TRANSIT;
            assertThat(b.state.status())
                    .as("seed %d, %d parts, after %s", seed, parts, appended)
                    .isEqualTo(expected);
        }
        MessageState whole = MessageFold.fold(b.events);
        assertThat(whole).isEqualTo(b.state);
        int cut = 1 + random.nextInt(b.events.size());
        List<StoredEvent> compacted = new ArrayList<>();
        StoredEvent last = b.events.get(cut - 1);
        compacted.add(new StoredEvent(
                last.messageId(), last.seq(), last.at(), "compactor", new Compacted(b.events.subList(0, cut))));
        compacted.addAll(b.events.subList(cut, b.events.size()));
        assertThat(MessageFold.fold(compacted)).isEqualTo(whole);
    }

    @Test
    void aLaterPartNeverComesBeforeTheOnesAheadOfItOrInAnotherAttempt() {
        Builder b = new Builder(UUID.fromString("0192f3a0-0000-7000-8000-0000000000aa"));
        b.append(new Accepted("demo", "smsc"));
        b.append(new Claimed(1, "worker", T0.plusSeconds(30)));
        b.append(new ProviderAccepted(1, "smsc", "m1", 1, 3));
        StoredEvent skipped =
                new StoredEvent(b.id, b.state.nextSeq(), b.now, "t", new ProviderAccepted(1, "smsc", "m3", 3, 3));
        assertThatThrownBy(() -> MessageFold.evolve(b.state, skipped)).isInstanceOf(InvalidTransitionException.class);
        StoredEvent otherAttempt =
                new StoredEvent(b.id, b.state.nextSeq(), b.now, "t", new ProviderAccepted(2, "smsc", "m2", 2, 3));
        assertThatThrownBy(() -> MessageFold.evolve(b.state, otherAttempt))
                .isInstanceOf(InvalidTransitionException.class);
    }

    @Test
    void aMessageSentWholeIsDeliveredByItsOneReceiptAsBefore() {
        Builder b = accepted(UUID.fromString("0192f3a0-0000-7000-8000-0000000000ab"), 1);
        b.append(new Receipt(ReceiptKind.DELIVERED, "smsc", "m1", "DELIVRD", T0, null, 1));
        assertThat(b.state.status()).isEqualTo(MessageStatus.DELIVERED);
        assertThat(b.state.partIds()).containsExactly("m1");
    }
}
