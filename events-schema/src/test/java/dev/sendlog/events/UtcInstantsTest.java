package dev.sendlog.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class UtcInstantsTest {
    private static final UUID ID = UUID.fromString("0192a0a0-0000-7000-8000-000000000001");
    private final EventCodec codec = new EventCodec();

    @Test
    void readsWhatInstantToStringWritesAsInstantParseDoes() {
        SplittableRandom random = new SplittableRandom(20261201);
        long first = Instant.parse("0000-01-01T00:00:00Z").getEpochSecond();
        long last = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();
        for (int i = 0; i < 200_000; i++) {
            int nanos = switch (i % 4) {
                case 0 -> 0;
                case 1 -> random.nextInt(1000) * 1_000_000;
                case 2 -> random.nextInt(1_000_000) * 1000;
                default -> random.nextInt(1_000_000_000);
            };
            Instant t = Instant.ofEpochSecond(random.nextLong(first, last + 1), nanos);
            assertThat(UtcInstants.parse(t.toString())).isEqualTo(t);
        }
    }

    @Test
    void everyFractionLengthReadsAsInstantParseDoes() {
        for (String text : List.of(
                "2026-12-01T11:19:45Z",
                "2026-12-01T11:19:45.1Z",
                "2026-12-01T11:19:45.12Z",
                "2026-12-01T11:19:45.123Z",
                "2026-12-01T11:19:45.1234Z",
                "2026-12-01T11:19:45.12345Z",
                "2026-12-01T11:19:45.123456Z",
                "2026-12-01T11:19:45.1234567Z",
                "2026-12-01T11:19:45.12345678Z",
                "2026-12-01T11:19:45.123456789Z",
                "2024-02-29T23:59:59.999999999Z",
                "1969-12-31T23:59:59.999999Z",
                "0000-01-01T00:00:00Z",
                "9999-12-31T23:59:59.999999999Z")) {
            assertThat(UtcInstants.parse(text)).as(text).isEqualTo(Instant.parse(text));
        }
    }

    @Test
    void anythingElseIsLeftToJacksonsOwnReading() {
        for (String text : List.of(
                "2026-02-30T00:00:00Z",
                "2026-13-01T00:00:00Z",
                "2026-12-01T24:00:00Z",
                "2026-12-31T23:59:60Z",
                "2026-12-01T11:19:45.Z",
                "2026-12-01T11:19:45.1234567890Z",
                "2026-12-01T11:19:45+01:00",
                "+12026-12-01T11:19:45Z",
                "-0001-12-01T11:19:45Z",
                "2026-12-01 11:19:45Z",
                "2026-12-01t11:19:45z",
                " 2026-12-01T11:19:45Z",
                "2026-1a-01T11:19:45Z",
                "2026-12-01T11:19:45")) {
            assertThat(UtcInstants.parse(text)).as(text).isNull();
        }
    }

    @Test
    void theCodecReadsTheSameTimesAndRefusesTheSameTextsAsBefore() {
        Instant t = Instant.parse("2026-12-01T11:19:45.123456Z");
        assertThat(codec.decode(
                        ID,
                        EventType.CLAIMED,
                        EventType.CLAIMED.currentVersion(),
                        "{\"attempt\":1,\"worker\":\"w\",\"deadline\":\"2026-12-01T11:19:45.123456Z\"}"))
                .isEqualTo(new Claimed(1, "w", t));
        // Not the fast form, still read by Jackson's deserializer: an offset, and a leap second (read as :59).
        assertThat(codec.decode(
                        ID,
                        EventType.CLAIMED,
                        EventType.CLAIMED.currentVersion(),
                        "{\"attempt\":1,\"worker\":\"w\",\"deadline\":\"2026-12-01T12:19:45.123456+01:00\"}"))
                .isEqualTo(new Claimed(1, "w", t));
        assertThat(codec.decode(
                        ID,
                        EventType.CLAIMED,
                        EventType.CLAIMED.currentVersion(),
                        "{\"attempt\":1,\"worker\":\"w\",\"deadline\":\"2016-12-31T23:59:60Z\"}"))
                .isEqualTo(new Claimed(1, "w", Instant.parse("2016-12-31T23:59:59Z")));
        for (String bad : List.of("2026-02-30T00:00:00Z", "yesterday", "2026-12-01T11:19:45")) {
            assertThatThrownBy(() -> codec.decode(
                            ID,
                            EventType.CLAIMED,
                            EventType.CLAIMED.currentVersion(),
                            "{\"attempt\":1,\"worker\":\"w\",\"deadline\":\"" + bad + "\"}"))
                    .as(bad)
                    .isInstanceOf(UnreadableEventException.class);
        }
        assertThatThrownBy(() -> Instant.parse("2026-02-30T00:00:00Z")).isInstanceOf(DateTimeParseException.class);
    }
}
