package dev.sendlog.log;

import dev.sendlog.events.EventRow;
import dev.sendlog.events.EventType;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * How every reader of histories selects and decodes event rows (the API, the pipeline, compaction): one select list
 * over {@code message_events e} left-joined to {@code publications p} on the publication the row names.
 */
public final class LogRows {
    /** The columns {@link #read} decodes, in order. */
    public static final String COLUMNS = """
            e.message_id, e.seq, e.at, e.type, e.actor, e.attempt, e.code, e.kind, e.ref, e.publication, e.time2, \
            e.gateway, e.provider_id, e.detail, e.detail2, e.packed, e.legacy_type, e.legacy_version, e.legacy_actor, \
            e.legacy_data::text, p.published_at, p.confirm_by, p.actor, \
            p.epochs[array_position(p.message_ids, e.message_id)]""";
    /** How many columns {@link #COLUMNS} holds. */
    public static final int COUNT = 24;
    /** The join that gives {@code p}. */
    public static final String JOIN_PUBLICATION = "LEFT JOIN publications p ON p.id = e.publication";

    private LogRows() {}

    /** The row whose columns start at {@code first} (1-based), or null when the left join found no event row. */
    public static LoggedRow read(ResultSet rs, int first, Actors actors) throws SQLException {
        UUID messageId = rs.getObject(first, UUID.class);
        if (messageId == null) {
            return null;
        }
        int seq = rs.getInt(first + 1);
        Instant at = instant(rs, first + 2);
        PublicationRef publication = null;
        Instant publishedAt = instant(rs, first + 20);
        if (publishedAt != null) {
            publication = new PublicationRef(
                    rs.getLong(first + 9),
                    publishedAt,
                    instant(rs, first + 21),
                    actors.name(rs.getInt(first + 22)),
                    rs.getLong(first + 23));
        }
        String legacyType = rs.getString(first + 16);
        if (legacyType != null) {
            return new LoggedRow(
                    messageId,
                    seq,
                    at,
                    null,
                    legacyType,
                    rs.getInt(first + 17),
                    rs.getString(first + 18),
                    rs.getString(first + 19),
                    publication);
        }
        EventRow typed = new EventRow(
                messageId,
                seq,
                EventType.ofCode(rs.getShort(first + 3)),
                actors.name(rs.getInt(first + 4)),
                at,
                smallOrNull(rs, first + 5),
                smallOrNull(rs, first + 6),
                smallOrNull(rs, first + 7),
                longOrNull(rs, first + 8),
                longOrNull(rs, first + 9),
                instant(rs, first + 10),
                rs.getString(first + 11),
                rs.getString(first + 12),
                rs.getString(first + 13),
                rs.getString(first + 14),
                rs.getBytes(first + 15));
        return new LoggedRow(messageId, seq, at, typed, null, 0, null, null, publication);
    }

    static Instant instant(ResultSet rs, int column) throws SQLException {
        OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }

    private static Short smallOrNull(ResultSet rs, int column) throws SQLException {
        short v = rs.getShort(column);
        return rs.wasNull() ? null : v;
    }

    private static Long longOrNull(ResultSet rs, int column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }
}
