package dev.sendlog.service.publish;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
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
    /** {@code %s}: the fence, or nothing for the read-ahead; {@code %s} as well for the REDRIVEN half. */
    private static final String WORK_TEMPLATE = """
            SELECT c.shard, w.message_id, w.seq, w.xid, w.position, w.attempt, w.at, w.scheduled,
                   pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS xmin
            FROM unnest(?::int2[], ?::int8[], ?::int8[]) AS c(shard, cx, cp)
            CROSS JOIN LATERAL (
                SELECT * FROM (
                    (SELECT m.id AS message_id, 1 AS seq, m.xid, m.position, 1 AS attempt, m.accepted_at AS at,
                            coalesce(m.send_at > m.accepted_at, false) AS scheduled
                     FROM messages m
                     WHERE m.shard = c.shard AND (m.xid, m.position) > (c.cx, c.cp)
                       %s
                     ORDER BY m.xid, m.position
                     LIMIT ?)
                    UNION ALL
                    (SELECT e.message_id, e.seq, e.xid, e.position, e.attempt, e.at, false
                     FROM message_events e
                     WHERE {work} AND e.shard = c.shard AND (e.xid, e.position) > (c.cx, c.cp)
                       %s
                     ORDER BY e.xid, e.position
                     LIMIT ?)
                ) u
                ORDER BY u.xid, u.position
                LIMIT ?
            ) w
            ORDER BY c.shard, w.xid, w.position""".replace("{work}", dev.sendlog.events.LogPredicates.WORK);

    /** How the tail's reads are planned (see {@link #read}), for this transaction only. */
    static final String PLAN_SETTINGS = "SELECT set_config('plan_cache_mode', 'force_generic_plan', true),"
            + " set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true)";

    static final String WORK_SQL = WORK_TEMPLATE.formatted(
            "AND m.xid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint",
            "AND e.xid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint");
    private static final String AHEAD_SQL = WORK_TEMPLATE.formatted("", "");

    private final DataSource dataSource;

    public LogTail(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** Work past each shard's cursor, at most {@code perShard} per shard, in (xid, position) order per shard. */
    public List<TailRow> work(List<Short> shards, List<TailCursor> cursors, int perShard) throws SQLException {
        return read(WORK_SQL, shards, cursors, perShard).rows();
    }

    /**
     * What a read past the fence found: every committed row past the cursors, and the snapshot's xmin. Only the rows
     * below it ({@link #fenced}) may move a cursor: a transaction still open may yet commit a row before the others.
     */
    public record Ahead(List<TailRow> rows, long xmin) {
        public boolean fenced(TailRow row) {
            return row.cursor().xid() < xmin;
        }
    }

    /**
     * As {@link #work}, but with every committed row past the cursors, not only those below the snapshot's xmin: the
     * high lane's poller publishes a row as soon as it is committed, not once every transaction older than its commit
     * has ended (under a normal backlog the oldest open transaction is up to 160 ms old, measured by
     * scripts/bench-priority). Its cursors still move only over the fenced rows; it remembers what it published ahead.
     */
    public Ahead workAhead(List<Short> shards, List<TailCursor> cursors, int perShard) throws SQLException {
        return read(AHEAD_SQL, shards, cursors, perShard);
    }

    private Ahead read(String sql, List<Short> shards, List<TailCursor> cursors, int perShard) throws SQLException {
        List<TailRow> rows = new ArrayList<>();
        long xmin = Long.MAX_VALUE;
        if (shards.isEmpty()) {
            return new Ahead(rows, xmin);
        }
        try (Connection c = dataSource.getConnection()) {
            // One transaction of two statements, so that the settings below hold for this read only. It writes
            // nothing, so it takes no xid.
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                // The read cannot prune a partition (it reads by shard and xid, not by id), so a custom plan buys
                // nothing over the connection's cached generic one, and costs a planning at every read: 2.3 ms planned
                // against 0.37 ms run under scripts/bench-fair's flood (pg_stat_statements), 0.11 ms when generic. The
                // generic plan is made once, with the statistics of that moment: with sequential and bitmap scans off,
                // every partition is read through its index in (xid, position) order, whatever its statistics said
                // then (a partition analyzed empty and filled since would otherwise be scanned whole at every read
                // until its next ANALYZE).
                st.execute(PLAN_SETTINGS);
            }
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setArray(1, c.createArrayOf("int2", shards.toArray(Short[]::new)));
                ps.setArray(
                        2,
                        c.createArrayOf(
                                "int8", cursors.stream().map(TailCursor::xid).toArray(Long[]::new)));
                ps.setArray(
                        3,
                        c.createArrayOf(
                                "int8",
                                cursors.stream().map(TailCursor::position).toArray(Long[]::new)));
                ps.setInt(4, perShard);
                ps.setInt(5, perShard);
                ps.setInt(6, perShard);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        rows.add(new TailRow(
                                rs.getShort(1),
                                rs.getObject(2, UUID.class),
                                rs.getInt(3),
                                new TailCursor(rs.getLong(4), rs.getLong(5)),
                                rs.getInt(6),
                                rs.getObject(7, java.time.OffsetDateTime.class).toInstant(),
                                rs.getBoolean(8)));
                        xmin = rs.getLong(9);
                    }
                }
            }
            c.commit();
        }
        return new Ahead(rows, xmin);
    }
}
