package dev.sendlog.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** REJECTED's stages in the typed row: a suppressed message's row holds only its code, and every stage reads back. */
class RejectedRowTest {
    private static final UUID ID = UUID.fromString("0192f3a0-0000-7000-8000-000000000001");
    private final RowCodec rows = new RowCodec(new EventCodec());

    @Test
    void everyStageRoundTripsAndASuppressionIsOnlyItsCode() {
        for (Rejected r : List.of(
                Rejected.suppressed(),
                new Rejected(Rejected.STAGE_CHECK, "recipient is on the block list"),
                new Rejected(Rejected.STAGE_PROVIDER, "HTTP 422: invalid"),
                new Rejected("elsewhere", "a stage of its own"),
                new Rejected(Rejected.STAGE_SUPPRESSION, "not the usual reason"))) {
            EventRow row = rows.toRow(ID, 3, "worker-1", Instant.EPOCH, r, null);
            assertThat(rows.fromRow(row)).isEqualTo(r);
        }
        EventRow suppressed = rows.toRow(ID, 3, "worker-1", Instant.EPOCH, Rejected.suppressed(), null);
        assertThat(suppressed.detail()).isNull();
        assertThat(suppressed.detail2()).isNull();
    }

    @Test
    void aSuppressedMessagesLastErrorIsExactlySuppressed() {
        assertThat(Rejected.suppressed().lastError()).isEqualTo("suppressed");
        assertThat(new Rejected(Rejected.STAGE_CHECK, "body too long").lastError())
                .isEqualTo("check: body too long");
    }
}
