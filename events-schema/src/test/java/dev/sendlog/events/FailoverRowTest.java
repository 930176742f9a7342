package dev.sendlog.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A failover is a REDRIVEN row naming the gateway the message moves to and why (issue 29): both kept through the row and
 * the JSON; every other re-drive is written as before, without them.
 */
class FailoverRowTest {
    private static final UUID ID = UUID.fromString("0192f3a0-0000-7000-8000-000000000001");
    private static final Instant T = Instant.parse("2026-11-30T09:00:00Z");
    private final EventCodec codec = new EventCodec();
    private final RowCodec rows = new RowCodec(codec);

    @Test
    void aFailoverKeepsItsGatewayAndErrorThroughTheRowAndTheJson() {
        Redriven moved = Redriven.failedOver(2, "backup", "primary: no connection: ConnectException: refused");
        EventRow row = rows.toRow(ID, 6, "worker-1", T, moved, null);
        assertThat(row.gateway()).isEqualTo("backup");
        assertThat(rows.fromRow(row)).isEqualTo(moved);
        EncodedEvent encoded = codec.encode(moved);
        assertThat(encoded.json()).contains("\"reason\":\"FAILED_OVER\"", "\"gateway\":\"backup\"");
        assertThat(codec.decode(ID, encoded.type(), encoded.version(), encoded.json()))
                .isEqualTo(moved);
    }

    @Test
    void anyOtherRedriveIsWrittenAsBeforeFailoversExisted() {
        Redriven retry = new Redriven(2, RedriveReason.RETRY_DUE);
        EventRow row = rows.toRow(ID, 6, "timer", T, retry, null);
        assertThat(row.gateway()).isNull();
        assertThat(row.detail()).isNull();
        assertThat(codec.encode(retry).json()).isEqualTo("{\"attempt\":2,\"reason\":\"RETRY_DUE\"}");
        assertThat(codec.decode(ID, EventType.REDRIVEN, 1, "{\"attempt\":2,\"reason\":\"RETRY_DUE\"}"))
                .isEqualTo(retry);
    }

    @Test
    void aFailoverWithoutItsGatewayOrAnotherReasonWithOneIsRefused() {
        assertThatThrownBy(() -> new Redriven(1, RedriveReason.FAILED_OVER, null, "refused"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Redriven(1, RedriveReason.RETRY_DUE, "backup", null))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
