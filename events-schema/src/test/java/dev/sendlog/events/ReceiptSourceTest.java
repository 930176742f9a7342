package dev.sendlog.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** A receipt says whether it was told (callback) or asked (status query), in its row and its JSON; old ones read as told. */
class ReceiptSourceTest {
    private static final UUID ID = UUID.fromString("0192f3a0-0000-7000-8000-000000000001");
    private static final Instant T = Instant.parse("2026-11-30T09:00:00Z");
    private final EventCodec codec = new EventCodec();
    private final RowCodec rows = new RowCodec(codec);

    private static Receipt receipt(ReceiptSource source) {
        return new Receipt(ReceiptKind.DELIVERED, "sim", "p42", "DELIVRD", T, null, 12, source);
    }

    @Test
    void aQueriedReceiptKeepsItsSourceThroughTheRowAndTheJson() {
        Receipt asked = receipt(ReceiptSource.QUERY);
        assertThat(rows.fromRow(rows.toRow(ID, 5, "reconciler", T, asked, null)))
                .isEqualTo(asked);
        EncodedEvent encoded = codec.encode(asked);
        assertThat(encoded.json()).contains("\"source\":\"QUERY\"");
        assertThat(codec.decode(ID, encoded.type(), encoded.version(), encoded.json()))
                .isEqualTo(asked);
    }

    @Test
    void aCallbacksReceiptIsWrittenAsBeforeTheSourceExisted() {
        Receipt told = receipt(ReceiptSource.CALLBACK);
        EventRow row = rows.toRow(ID, 5, "callbacks", T, told, null);
        assertThat(row.code()).isNull();
        assertThat(rows.fromRow(row)).isEqualTo(told);
        String json = codec.encode(told).json();
        assertThat(json).doesNotContain("source");
        assertThat(codec.decode(ID, EventType.RECEIPT, EventType.RECEIPT.currentVersion(), json))
                .isEqualTo(told);
        assertThat(new Receipt(ReceiptKind.DELIVERED, "sim", "p42", "DELIVRD", T, null, 12).source())
                .isEqualTo(ReceiptSource.CALLBACK);
    }
}
