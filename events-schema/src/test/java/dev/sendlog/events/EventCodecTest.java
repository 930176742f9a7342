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
                new Resolved(9, Resolved.Action.APPLY, ReceiptKind.DELIVERED, "confirmed by phone"),
                new Expired(),
                new Cancelled(),
                new Scheduled(T),
                new Compacted(List.of(
                        new StoredEvent(ID, 1, T, "api", new Accepted("demo", "sim")),
                        new StoredEvent(ID, 2, T, "api", new Scheduled(T.plusSeconds(60))),
                        new StoredEvent(ID, 3, T.plusSeconds(60), "timer", new Redriven(1, RedriveReason.DUE)),
                        new StoredEvent(ID, 4, T, "poller-1", new Published(1, 1, T)))));
    }

    @Test
    void everyEventTypeRoundTripsAtItsCurrentVersion() {
        List<MessageEvent> events = oneOfEach();
        assertThat(events).extracting(MessageEvent::type).containsExactlyInAnyOrder(EventType.values());
        for (MessageEvent event : events) {
            EncodedEvent encoded = codec.encode(event);
            assertThat(encoded.version()).isEqualTo(event.type().currentVersion());
            assertThat(codec.decode(ID, encoded.type(), encoded.version(), encoded.json()))
                    .isEqualTo(event);
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
        assertThat(compacted.events())
                .singleElement()
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
        assertThatThrownBy(() ->
                        codec.decode(ID, EventType.ACCEPTED, 1, "{\"tenant\":\"a\",\"gateway\":\"b\",\"surprise\":1}"))
                .isInstanceOf(UnreadableEventException.class);
    }

    /** The life most messages have: the shape the packed snapshot's dictionary is made for. */
    private static Compacted typicalLife(Instant t0) {
        String provider = "9f1c2e7a4b3d4e5f8a6b7c8d9e0f1a2b";
        return new Compacted(List.of(
                new StoredEvent(ID, 1, t0, "api", new Accepted("acme", "sim")),
                new StoredEvent(
                        ID, 2, t0.plusNanos(4_211_000), "poller-host-4242", new Published(1, 17, t0.plusSeconds(30))),
                new StoredEvent(
                        ID,
                        3,
                        t0.plusNanos(9_871_000),
                        "worker-host-4242",
                        new Claimed(1, "worker-host-4242", t0.plusSeconds(60))),
                new StoredEvent(
                        ID, 4, t0.plusNanos(48_377_000), "worker-host-4242", new ProviderAccepted(1, "sim", provider)),
                new StoredEvent(
                        ID,
                        5,
                        t0.plusNanos(912_004_000),
                        "callbacks-host-4242",
                        new Receipt(
                                ReceiptKind.INTERMEDIATE,
                                "sim",
                                provider,
                                "ENROUTE",
                                t0.plusMillis(900),
                                null,
                                812_331)),
                new StoredEvent(
                        ID,
                        6,
                        t0.plusNanos(1_930_517_000),
                        "callbacks-host-4242",
                        new Receipt(
                                ReceiptKind.DELIVERED,
                                "sim",
                                provider,
                                "DELIVRD",
                                t0.plusMillis(1900),
                                null,
                                812_977))));
    }

    @Test
    void aSnapshotIsWrittenPackedAndReadsBackEventForEvent() {
        Compacted life = typicalLife(Instant.parse("2026-11-30T09:00:00.123456Z"));
        EncodedEvent encoded = codec.encode(life);
        assertThat(encoded.version()).isEqualTo(2);
        assertThat(encoded.json()).startsWith("{\"packed\":\"");
        assertThat(codec.decode(ID, EventType.COMPACTED, 2, encoded.json())).isEqualTo(life);
    }

    @Test
    void aTypicalLifePacksToAFractionOfTheSpelledOutForm() {
        Compacted life = typicalLife(Instant.parse("2026-11-30T09:00:00.123456Z"));
        String spelledOut = codec.toNode(life).toString();
        String packed = codec.encode(life).json();
        // Measured: about 1,300 characters spelled out (the v1 form), about 200 packed with the dictionary; without
        // the dictionary DEFLATE alone gives about 500.
        assertThat(packed.length())
                .as("packed %s against spelled out %s", packed.length(), spelledOut.length())
                .isLessThan(spelledOut.length() / 4);
    }

    @Test
    void timesKeepTheirPrecisionAndRangeInAPackedSnapshot() {
        List<Instant> times = List.of(
                Instant.parse("2026-11-30T09:00:00.123456Z"),
                Instant.parse("2026-11-30T09:00:00.123456789Z"),
                Instant.parse("1969-12-31T23:59:59.999999Z"),
                Instant.parse("2026-11-30T08:00:00Z"),
                Instant.MAX,
                Instant.MIN,
                Instant.EPOCH,
                Instant.parse("+200000-01-01T00:00:00Z"),
                Instant.parse("2026-11-30T09:00:01.000001Z"));
        List<StoredEvent> events = new java.util.ArrayList<>();
        for (int i = 0; i < times.size(); i++) {
            events.add(new StoredEvent(ID, i + 1, times.get(i), "actor-" + i, new Published(i + 1, i, times.get(i))));
        }
        Compacted snapshot = new Compacted(events);
        assertThat(codec.decode(
                        ID, EventType.COMPACTED, 2, codec.encode(snapshot).json()))
                .isEqualTo(snapshot);
    }

    @Test
    void aVersionOneSnapshotStillReadsAsTheSameHistory() {
        Compacted life = typicalLife(Instant.parse("2026-11-30T09:00:00.123456Z"));
        String v1 = codec.toNode(life).toString();
        assertThat(codec.decode(ID, EventType.COMPACTED, 1, v1)).isEqualTo(life);
    }

    @Test
    void aDamagedPackedSnapshotIsRefusedLoudly() {
        String good =
                codec.encode(typicalLife(Instant.parse("2026-11-30T09:00:00Z"))).json();
        String base64 = good.substring("{\"packed\":\"".length(), good.length() - 2);
        byte[] bytes = java.util.Base64.getDecoder().decode(base64);
        byte[] truncated = java.util.Arrays.copyOf(bytes, bytes.length - 5);
        byte[] trailing = java.util.Arrays.copyOf(bytes, bytes.length + 3);
        for (String damaged : List.of(
                "{\"packed\":\"not base64!\"}",
                "{\"packed\":7}",
                "{}",
                "{\"packed\":\"" + base64 + "\",\"more\":1}",
                "{\"packed\":\"" + java.util.Base64.getEncoder().encodeToString(truncated) + "\"}",
                "{\"packed\":\"" + java.util.Base64.getEncoder().encodeToString(trailing) + "\"}",
                "{\"packed\":\""
                        + java.util.Base64.getEncoder()
                                .encodeToString(SnapshotDeflate.deflate("[[1,\"NOPE\",1,0,\"api\",{}]]"
                                        .getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                        + "\"}",
                "{\"packed\":\""
                        + java.util.Base64.getEncoder()
                                .encodeToString(SnapshotDeflate.deflate(
                                        "[[1,\"ACCEPTED\",1,\"yesterday\",\"api\",{\"tenant\":\"a\",\"gateway\":\"b\"}]]"
                                                .getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                        + "\"}",
                "{\"packed\":\""
                        + java.util.Base64.getEncoder()
                                .encodeToString(SnapshotDeflate.deflate(
                                        "[[1,\"ACCEPTED\",1,1.5,\"api\",{\"tenant\":\"a\",\"gateway\":\"b\"}]]"
                                                .getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                        + "\"}",
                "{\"packed\":\""
                        + java.util.Base64.getEncoder()
                                .encodeToString(SnapshotDeflate.deflate(
                                        "[[1.0,\"ACCEPTED\",1,0,\"api\",{\"tenant\":\"a\",\"gateway\":\"b\"}]]"
                                                .getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                        + "\"}",
                "{\"packed\":\""
                        + java.util.Base64.getEncoder()
                                .encodeToString(
                                        SnapshotDeflate.deflate("[]".getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                        + "\"}")) {
            assertThatThrownBy(() -> codec.decode(ID, EventType.COMPACTED, 2, damaged))
                    .as(damaged)
                    .isInstanceOf(UnreadableEventException.class)
                    .hasMessageContaining(ID.toString());
        }
    }
}
