package dev.sendlog.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A part of a concatenated message (issue 28) keeps its number and count through its row and its JSON; a message sent
 * whole is written as before parts existed, and old rows and JSON read as part 1 of 1.
 */
class ProviderPartsTest {
    private static final UUID ID = UUID.fromString("0192f3a0-0000-7000-8000-000000000002");
    private static final Instant T = Instant.parse("2026-12-06T09:00:00Z");
    private final EventCodec codec = new EventCodec();
    private final RowCodec rows = new RowCodec(codec);

    @Test
    void aPartKeepsItsNumberAndCountInTheRowAndTheJson() {
        ProviderAccepted second = new ProviderAccepted(1, "smsc", "1f", 2, 3);
        EventRow row = rows.toRow(ID, 6, "worker", T, second, null);
        assertThat(row.code()).isEqualTo((short) 2);
        assertThat(row.kind()).isEqualTo((short) 3);
        assertThat(rows.fromRow(row)).isEqualTo(second);
        EncodedEvent encoded = codec.encode(second);
        assertThat(encoded.json()).contains("\"part\":2").contains("\"parts\":3");
        assertThat(codec.decode(ID, encoded.type(), encoded.version(), encoded.json()))
                .isEqualTo(second);
    }

    @Test
    void aMessageSentWholeIsWrittenAsBeforeAndOldJsonReadsAsPartOneOfOne() {
        ProviderAccepted whole = new ProviderAccepted(2, "sim", "p7");
        EventRow row = rows.toRow(ID, 6, "worker", T, whole, null);
        assertThat(row.code()).isNull();
        assertThat(row.kind()).isNull();
        assertThat(rows.fromRow(row)).isEqualTo(whole);
        String json = codec.encode(whole).json();
        assertThat(json).doesNotContain("part");
        ProviderAccepted old = (ProviderAccepted) codec.decode(
                ID,
                EventType.PROVIDER_ACCEPTED,
                EventType.PROVIDER_ACCEPTED.currentVersion(),
                "{\"attempt\":2,\"gateway\":\"sim\",\"providerId\":\"p7\"}");
        assertThat(old).isEqualTo(whole);
        assertThat(old.part()).isEqualTo(1);
        assertThat(old.parts()).isEqualTo(1);
    }

    @Test
    void aPartOutsideItsCountIsRefused() {
        assertThatThrownBy(() -> new ProviderAccepted(1, "smsc", "1f", 4, 3))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ProviderAccepted(1, "smsc", "1f", 1, 300))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
