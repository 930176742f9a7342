package dev.sendlog.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class EventCodecTest {
    private static final UUID ID = UUID.fromString("0192f3a0-0000-7000-8000-000000000001");
    private static final Instant T = Instant.parse("2026-11-30T09:00:00Z");
    private final EventCodec codec = new EventCodec();

    static List<MessageEvent> oneOfEach() {
        return List.of(
                new Accepted("demo", "sim"),
                new Published(1, 7, T),
                new Claimed(1, "worker-1", T),
                new ProviderAccepted(1, "sim", "p42"),
                new AttemptFailed(2, "503 from provider", T),
                new Rejected(Rejected.STAGE_CHECK, "recipient is not E.164"),
                new Redriven(3, RedriveReason.PUBLISH_TIMEOUT),
                new Dead(5, "attempt limit 5 reached"),
                new Receipt(ReceiptKind.DELIVERED, "sim", "p42", "DELIVRD", T, null, 12),
                new OutcomeUnknown("no final receipt within PT48H"),
                new Resolved(9, Resolved.APPLY, ReceiptKind.DELIVERED, "confirmed by phone"),
                new Compacted(List.of(new StoredEvent(ID, 1, T, "api", new Accepted("demo", "sim")),
                        new StoredEvent(ID, 2, T, "poller-1", new Published(1, 1, T)))));
    }

    @Test
    void everyEventTypeRoundTripsAtItsCurrentVersion() {
        List<MessageEvent> events = oneOfEach();
        assertThat(events).extracting(MessageEvent::type).containsExactlyInAnyOrder(EventType.values());
        for (MessageEvent event : events) {
            EncodedEvent encoded = codec.encode(event);
            assertThat(encoded.version()).isEqualTo(event.type().currentVersion());
            assertThat(codec.decode(ID, encoded.type(), encoded.version(), encoded.json())).isEqualTo(event);
        }
    }

    @Test
    void claimedVersionOneWithEpochMillisDeadlineStillReads() {
        String v1 = "{\"attempt\":2,\"worker\":\"worker-3\",\"deadlineEpochMs\":" + T.toEpochMilli() + "}";
        MessageEvent event = codec.decode(ID, EventType.CLAIMED, 1, v1);
        assertThat(event).isEqualTo(new Claimed(2, "worker-3", T));
    }

    @Test
    void compactedSnapshotUpcastsTheOldEventsItHolds() {
        String json = "{\"events\":[{\"seq\":3,\"type\":\"CLAIMED\",\"version\":1,\"at\":\"" + T
                + "\",\"actor\":\"worker-1\",\"data\":{\"attempt\":1,\"worker\":\"worker-1\",\"deadlineEpochMs\":"
                + T.toEpochMilli() + "}}]}";
        Compacted compacted = (Compacted) codec.decode(ID, EventType.COMPACTED, 1, json);
        assertThat(compacted.events()).singleElement()
                .satisfies(e -> assertThat(e.event()).isEqualTo(new Claimed(1, "worker-1", T)));
    }

    @Test
    void aVersionNewerThanThisBuildIsRefusedLoudly() {
        assertThatThrownBy(() -> codec.decode(ID, EventType.ACCEPTED, 9, "{\"tenant\":\"a\",\"gateway\":\"b\"}"))
                .isInstanceOf(UnreadableEventException.class)
                .hasMessageContaining("version 9");
    }

    @Test
    void aPayloadMissingARequiredFieldIsRefusedNotDefaulted() {
        assertThatThrownBy(() -> codec.decode(ID, EventType.PUBLISHED, 1, "{\"attempt\":1,\"epoch\":1}"))
                .isInstanceOf(UnreadableEventException.class)
                .hasMessageContaining("confirmBy");
    }

    @Test
    void anUnknownFieldIsRefusedRatherThanIgnored() {
        assertThatThrownBy(() -> codec.decode(ID, EventType.ACCEPTED, 1,
                "{\"tenant\":\"a\",\"gateway\":\"b\",\"surprise\":1}"))
                .isInstanceOf(UnreadableEventException.class);
    }
}
