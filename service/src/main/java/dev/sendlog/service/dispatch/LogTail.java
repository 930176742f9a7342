package dev.sendlog.service.dispatch;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Reads the log past a cursor, per shard, snapshot-safely (DESIGN.md invariant 12): only events whose
 * writing transaction is below the snapshot's xmin (so every transaction that could still commit an
 * earlier event has ended), in (xid, position) order. Reads in autocommit, holding no xid of its own.
 * One query covers every shard a poller owns (a LATERAL join over their cursors).
 */
public final class LogTail {
    private static final String TAIL_SQL = """
            SELECT c.shard, e.message_id, e.seq, e.xid, e.position, e.type, e.version, e.data::text, e.at, e.actor
            FROM unnest(?::int2[], ?::int8[], ?::int8[]) AS c(shard, cx, cp)
            CROSS JOIN LATERAL (
                SELECT e.message_id, e.seq, e.xid, e.position, e.type, e.version, e.data, e.at, e.actor
                FROM message_events e
                WHERE e.shard = c.shard %s
                  AND (e.xid, e.position) > (c.cx, c.cp)
                  AND e.xid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint
                ORDER BY e.xid, e.position
                LIMIT ?
            ) e
            ORDER BY c.shard, e.xid, e.position""";

    /** The events that create work for the poller; the predicate matches the partial index message_events_work. */
    private static final String WORK_SQL = TAIL_SQL.formatted("AND e.type IN ('ACCEPTED', 'REDRIVEN')");
    private static final String ALL_SQL = TAIL_SQL.formatted("");

    private final DataSource dataSource;

    public LogTail(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** Work events (ACCEPTED, REDRIVEN) past each shard's cursor, at most {@code perShard} per shard. */
    public List<TailRow> work(List<Short> shards, List<TailCursor> cursors, int perShard) throws SQLException {
        return read(WORK_SQL, shards, cursors, perShard);
    }

    /** Every event past each shard's cursor. */
    public List<TailRow> all(List<Short> shards, List<TailCursor> cursors, int perShard) throws SQLException {
        return read(ALL_SQL, shards, cursors, perShard);
    }

    private List<TailRow> read(String sql, List<Short> shards, List<TailCursor> cursors, int perShard) throws SQLException {
        List<TailRow> rows = new ArrayList<>();
        if (shards.isEmpty()) {
            return rows;
        }
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setArray(1, c.createArrayOf("int2", shards.toArray(Short[]::new)));
                ps.setArray(2, c.createArrayOf("int8", cursors.stream().map(TailCursor::xid).toArray(Long[]::new)));
                ps.setArray(3, c.createArrayOf("int8", cursors.stream().map(TailCursor::position).toArray(Long[]::new)));
                ps.setInt(4, perShard);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        rows.add(new TailRow(rs.getShort(1), rs.getObject(2, UUID.class), rs.getInt(3),
                                new TailCursor(rs.getLong(4), rs.getLong(5)), rs.getString(6), rs.getInt(7), rs.getString(8),
                                rs.getObject(9, java.time.OffsetDateTime.class).toInstant(), rs.getString(10)));
                    }
                }
            }
        }
        return rows;
    }
}
