package dev.sendlog.service.publish;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Decodes the messages of PostgreSQL's {@code pgoutput} logical decoding plugin, protocol version 1 (the
 * "Logical Replication Message Formats" chapter of the PostgreSQL manual): BEGIN, COMMIT, RELATION and INSERT carry
 * what the feed needs; ORIGIN, TYPE and TRUNCATE are read past. Anything else (an UPDATE or DELETE, which the
 * publication never sends, or a message this version does not know) is an error that names the message type: the
 * feed reconnects and the slot replays, rather than skipping a change it did not understand.
 */
final class PgOutput {
    /** What one message was. */
    sealed interface Message permits Begin, Commit, Insert, Ignored {}

    record Begin(long finalLsn, int xid) implements Message {}

    /** {@code endLsn} is the position to confirm once everything up to this commit is handled. */
    record Commit(long commitLsn, long endLsn) implements Message {}

    /** One inserted row, as text by column name ({@code null} for SQL NULL). */
    record Insert(String table, Map<String, String> values) implements Message {}

    record Ignored(char type) implements Message {}

    private record Relation(String table, List<String> columns) {}

    private final Map<Integer, Relation> relations = new HashMap<>();

    Message decode(ByteBuffer buffer) {
        char type = (char) buffer.get();
        return switch (type) {
            case 'B' -> {
                long finalLsn = buffer.getLong();
                buffer.getLong(); // commit timestamp
                yield new Begin(finalLsn, buffer.getInt());
            }
            case 'C' -> {
                buffer.get(); // flags
                long commitLsn = buffer.getLong();
                long endLsn = buffer.getLong();
                buffer.getLong(); // commit timestamp
                yield new Commit(commitLsn, endLsn);
            }
            case 'R' -> {
                int id = buffer.getInt();
                String namespace = string(buffer);
                String name = string(buffer);
                buffer.get(); // replica identity
                int count = buffer.getShort();
                String[] columns = new String[count];
                for (int i = 0; i < count; i++) {
                    buffer.get(); // flags
                    columns[i] = string(buffer);
                    buffer.getInt(); // type oid
                    buffer.getInt(); // type modifier
                }
                relations.put(id, new Relation(namespace + "." + name, Arrays.asList(columns)));
                yield new Ignored(type);
            }
            case 'I' -> {
                int id = buffer.getInt();
                Relation relation = relations.get(id);
                if (relation == null) {
                    throw new IllegalStateException(
                            "pgoutput: INSERT into relation " + id + " before its RELATION message");
                }
                char marker = (char) buffer.get();
                if (marker != 'N') {
                    throw new IllegalStateException(
                            "pgoutput: INSERT carries tuple marker '" + marker + "', expected 'N'");
                }
                yield new Insert(relation.table(), tuple(buffer, relation));
            }
            case 'O', 'Y', 'T' -> new Ignored(type);
            default ->
                throw new IllegalStateException("pgoutput: unexpected message type '" + type
                        + "' (the publication sends inserts only, protocol version 1)");
        };
    }

    private static Map<String, String> tuple(ByteBuffer buffer, Relation relation) {
        int count = buffer.getShort();
        if (count != relation.columns().size()) {
            throw new IllegalStateException(
                    "pgoutput: a row of " + relation.table() + " has " + count + " columns, its RELATION message named "
                            + relation.columns().size());
        }
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < count; i++) {
            char kind = (char) buffer.get();
            String value = switch (kind) {
                case 'n' -> null;
                case 't' -> {
                    byte[] bytes = new byte[buffer.getInt()];
                    buffer.get(bytes);
                    yield new String(bytes, StandardCharsets.UTF_8);
                }
                default ->
                    throw new IllegalStateException(
                            "pgoutput: column " + relation.columns().get(i) + " of " + relation.table() + " comes as '"
                                    + kind + "'; only text and null are expected in an insert");
            };
            values.put(relation.columns().get(i), value);
        }
        return values;
    }

    private static String string(ByteBuffer buffer) {
        int start = buffer.position();
        int end = start;
        while (buffer.get(end) != 0) {
            end++;
        }
        byte[] bytes = new byte[end - start];
        buffer.get(bytes);
        buffer.get(); // the terminating zero
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
