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
 * Reads the work past a cursor, per shard, snapshot-safely (DESIGN.md invariant 12): only rows whose writing
 * transaction is below the snapshot's xmin (so every transaction that could still commit an earlier one has ended),
 * in (xid, position) order. Work is of two kinds with one position sequence: new messages (the messages rows, through
 * messages_work) and REDRIVEN events (through message_events_work); each shard's page merges the two. Reads in
 * autocommit, holding no xid of its own. One query covers every shard a poller owns (a LATERAL join over their
 * cursors).
 *
 * <p>A scheduled message's row (its sendAt after its acceptance, issue 26) is read like any other, so the cursor moves
 * past it (filtering it out in the query would make every later read scan it again while it waits, up to 30 days),
 * and is marked: nothing is published for it until the due scan appends its REDRIVEN.
 */
public final class LogTail {
    private static final String WORK_SQL = """
            SELECT c.shard, w.message_id, w.seq, w.xid, w.position, w.attempt, w.at, w.scheduled
            FROM unnest(?::int2[], ?::int8[], ?::int8[]) AS c(shard, cx, cp)
            CROSS JOIN LATERAL (
                SELECT * FROM (
                    (SELECT m.id AS message_id, 1 AS seq, m.xid, m.position, 1 AS attempt, m.accepted_at AS at,
                            coalesce(m.send_at > m.accepted_at, false) AS scheduled
                     FROM messages m
                     WHERE m.shard = c.shard AND (m.xid, m.position) > (c.cx, c.cp)
                       AND m.xid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint
                     ORDER BY m.xid, m.position
                     LIMIT ?)
                    UNION ALL
                    (SELECT e.message_id, e.seq, e.xid, e.position, e.attempt, e.at, false
                     FROM message_events e
                     WHERE e.type = 7 AND e.shard = c.shard AND (e.xid, e.position) > (c.cx, c.cp)
                       AND e.xid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint
                     ORDER BY e.xid, e.position
                     LIMIT ?)
                ) u
                ORDER BY u.xid, u.position
                LIMIT ?
            ) w
            ORDER BY c.shard, w.xid, w.position""";

    private final DataSource dataSource;

    public LogTail(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** Work past each shard's cursor, at most {@code perShard} per shard, in (xid, position) order per shard. */
    public List<TailRow> work(List<Short> shards, List<TailCursor> cursors, int perShard) throws SQLException {
        List<TailRow> rows = new ArrayList<>();
        if (shards.isEmpty()) {
            return rows;
        }
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(WORK_SQL)) {
                ps.setArray(1, c.createArrayOf("int2", shards.toArray(Short[]::new)));
                ps.setArray(2, c.createArrayOf("int8", cursors.stream().map(TailCursor::xid).toArray(Long[]::new)));
                ps.setArray(3, c.createArrayOf("int8", cursors.stream().map(TailCursor::position).toArray(Long[]::new)));
                ps.setInt(4, perShard);
                ps.setInt(5, perShard);
                ps.setInt(6, perShard);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        rows.add(new TailRow(rs.getShort(1), rs.getObject(2, UUID.class), rs.getInt(3),
                                new TailCursor(rs.getLong(4), rs.getLong(5)), rs.getInt(6),
                                rs.getObject(7, java.time.OffsetDateTime.class).toInstant(), rs.getBoolean(8)));
                    }
                }
            }
        }
        return rows;
    }
}
