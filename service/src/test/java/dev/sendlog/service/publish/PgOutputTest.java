package dev.sendlog.service.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The pgoutput decoder on messages built by hand to the protocol's layout, including the ones it must refuse. */
class PgOutputTest {
    @Test
    void aTransactionDecodesToBeginTheInsertedRowByColumnNameAndCommit() throws IOException {
        PgOutput decoder = new PgOutput();
        assertThat(decoder.decode(message(out -> {
                    out.writeByte('B');
                    out.writeLong(0x1_0000_00A0L);
                    out.writeLong(0);
                    out.writeInt(742);
                })))
                .isEqualTo(new PgOutput.Begin(0x1_0000_00A0L, 742));
        assertThat(decoder.decode(relation())).isInstanceOf(PgOutput.Ignored.class);
        PgOutput.Message insert = decoder.decode(message(out -> {
            out.writeByte('I');
            out.writeInt(16_384);
            out.writeByte('N');
            out.writeShort(3);
            text(out, "ACCEPTED");
            out.writeByte('n');
            text(out, "é 😀");
        }));
        assertThat(insert).isInstanceOf(PgOutput.Insert.class);
        PgOutput.Insert row = (PgOutput.Insert) insert;
        assertThat(row.table()).isEqualTo("public.message_events");
        assertThat(row.values())
                .containsEntry("type", "ACCEPTED")
                .containsEntry("actor", null)
                .containsEntry("data", "é 😀");
        assertThat(decoder.decode(message(out -> {
                    out.writeByte('C');
                    out.writeByte(0);
                    out.writeLong(0x1_0000_00A0L);
                    out.writeLong(0x1_0000_00F8L);
                    out.writeLong(0);
                })))
                .isEqualTo(new PgOutput.Commit(0x1_0000_00A0L, 0x1_0000_00F8L));
    }

    @Test
    void whatTheFeedCannotHandleIsAnErrorNamingItNeverASkippedChange() throws IOException {
        PgOutput decoder = new PgOutput();
        assertThatThrownBy(() -> decoder.decode(message(out -> {
                    out.writeByte('U');
                    out.writeInt(16_384);
                })))
                .hasMessageContaining("unexpected message type 'U'");
        assertThatThrownBy(() -> decoder.decode(message(out -> {
                    out.writeByte('I');
                    out.writeInt(99);
                    out.writeByte('N');
                })))
                .hasMessageContaining("relation 99 before its RELATION message");
        decoder.decode(relation());
        assertThatThrownBy(() -> decoder.decode(message(out -> {
                    out.writeByte('I');
                    out.writeInt(16_384);
                    out.writeByte('N');
                    out.writeShort(2);
                })))
                .hasMessageContaining("has 2 columns");
    }

    @Test
    void timestampsInPostgresTextFormParse() {
        assertThat(CdcFeed.timestamp("2026-11-30 16:05:01.123456+00"))
                .isEqualTo(Instant.parse("2026-11-30T16:05:01.123456Z"));
        assertThat(CdcFeed.timestamp("2026-11-30 16:05:01+05:30")).isEqualTo(Instant.parse("2026-11-30T10:35:01Z"));
        assertThat(CdcFeed.timestamp("2026-11-30 16:05:01.5-08")).isEqualTo(Instant.parse("2026-12-01T00:05:01.5Z"));
    }

    private static ByteBuffer relation() throws IOException {
        return message(out -> {
            out.writeByte('R');
            out.writeInt(16_384);
            string(out, "public");
            string(out, "message_events");
            out.writeByte('d');
            out.writeShort(3);
            for (String column : new String[] {"type", "actor", "data"}) {
                out.writeByte(0);
                string(out, column);
                out.writeInt(1043);
                out.writeInt(-1);
            }
        });
    }

    private interface Writer {
        void write(DataOutputStream out) throws IOException;
    }

    private static ByteBuffer message(Writer writer) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        writer.write(new DataOutputStream(bytes));
        return ByteBuffer.wrap(bytes.toByteArray());
    }

    private static void string(DataOutputStream out, String s) throws IOException {
        out.write(s.getBytes(StandardCharsets.UTF_8));
        out.writeByte(0);
    }

    private static void text(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeByte('t');
        out.writeInt(b.length);
        out.write(b);
    }
}
