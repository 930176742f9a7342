package dev.sendlog.service.dispatch;

import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;

/** Writes the status projection: one statement per batch, one row per message however many events it folded. */
public final class StatusProjection {
    private static final String UPSERT_SQL = """
            INSERT INTO message_status (message_id, tenant, shard, status, last_seq, due_at)
            SELECT id, tenant, shard, status, last_seq, due_at::timestamptz
            FROM unnest(?::uuid[], ?::text[], ?::int2[], ?::text[], ?::int4[], ?::text[])
                 AS t(id, tenant, shard, status, last_seq, due_at)
            ON CONFLICT (message_id) DO UPDATE SET
                status = EXCLUDED.status, last_seq = EXCLUDED.last_seq, due_at = EXCLUDED.due_at
            WHERE message_status.last_seq < EXCLUDED.last_seq""";

    private StatusProjection() {
    }

    /** Upserts the rows; a row never goes back to an older seq. Returns the rows written. */
    public static int upsert(DSLContext tx, List<StatusRow> rows) {
        if (rows.isEmpty()) {
            return 0;
        }
        int n = rows.size();
        UUID[] ids = new UUID[n];
        String[] tenants = new String[n];
        Short[] shards = new Short[n];
        String[] statuses = new String[n];
        Integer[] seqs = new Integer[n];
        String[] dueAt = new String[n];
        for (int i = 0; i < n; i++) {
            StatusRow r = rows.get(i);
            ids[i] = r.messageId();
            tenants[i] = r.tenant();
            shards[i] = r.shard();
            statuses[i] = r.state().status().name();
            seqs[i] = r.state().seq();
            dueAt[i] = r.dueAt() == null ? null : r.dueAt().toString();
        }
        return tx.connectionResult(c -> {
            try (var ps = c.prepareStatement(UPSERT_SQL)) {
                ps.setArray(1, c.createArrayOf("uuid", ids));
                ps.setArray(2, c.createArrayOf("text", tenants));
                ps.setArray(3, c.createArrayOf("int2", shards));
                ps.setArray(4, c.createArrayOf("text", statuses));
                ps.setArray(5, c.createArrayOf("int4", seqs));
                ps.setArray(6, c.createArrayOf("text", dueAt));
                return ps.executeUpdate();
            }
        });
    }
}
