package dev.sendlog.service.dispatch;

import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;

/** Writes the status projection: one statement per batch, one row per message however many events it folded. */
public final class StatusProjection {
    private static final String UPSERT_SQL = """
            INSERT INTO message_status (message_id, tenant, shard, status, last_seq, attempts, recipient, reference,
                                        gateway, provider_id, accepted_at, updated_at, due_at, last_error)
            SELECT id, tenant, shard, status, last_seq, attempts, recipient, reference, gateway, provider_id,
                   accepted_at::timestamptz, updated_at::timestamptz, due_at::timestamptz, last_error
            FROM unnest(?::uuid[], ?::text[], ?::int2[], ?::text[], ?::int4[], ?::int4[], ?::text[], ?::text[], ?::text[],
                        ?::text[], ?::text[], ?::text[], ?::text[], ?::text[])
                 AS t(id, tenant, shard, status, last_seq, attempts, recipient, reference, gateway, provider_id,
                      accepted_at, updated_at, due_at, last_error)
            ON CONFLICT (message_id) DO UPDATE SET
                status = EXCLUDED.status, last_seq = EXCLUDED.last_seq, attempts = EXCLUDED.attempts,
                provider_id = EXCLUDED.provider_id, updated_at = EXCLUDED.updated_at, due_at = EXCLUDED.due_at,
                last_error = EXCLUDED.last_error
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
        Integer[] attempts = new Integer[n];
        String[] recipients = new String[n];
        String[] references = new String[n];
        String[] gateways = new String[n];
        String[] providerIds = new String[n];
        String[] acceptedAt = new String[n];
        String[] updatedAt = new String[n];
        String[] dueAt = new String[n];
        String[] errors = new String[n];
        for (int i = 0; i < n; i++) {
            StatusRow r = rows.get(i);
            ids[i] = r.message().id();
            tenants[i] = r.message().tenant();
            shards[i] = r.shard();
            statuses[i] = r.state().status().name();
            seqs[i] = r.state().seq();
            attempts[i] = r.state().claims();
            recipients[i] = r.message().recipient();
            references[i] = r.message().reference();
            gateways[i] = r.message().gateway();
            providerIds[i] = r.state().providerId();
            acceptedAt[i] = r.message().acceptedAt().toString();
            updatedAt[i] = r.state().updatedAt().toString();
            dueAt[i] = r.dueAt() == null ? null : r.dueAt().toString();
            errors[i] = r.state().lastError();
        }
        return tx.connectionResult(c -> {
            try (var ps = c.prepareStatement(UPSERT_SQL)) {
                ps.setArray(1, c.createArrayOf("uuid", ids));
                ps.setArray(2, c.createArrayOf("text", tenants));
                ps.setArray(3, c.createArrayOf("int2", shards));
                ps.setArray(4, c.createArrayOf("text", statuses));
                ps.setArray(5, c.createArrayOf("int4", seqs));
                ps.setArray(6, c.createArrayOf("int4", attempts));
                ps.setArray(7, c.createArrayOf("text", recipients));
                ps.setArray(8, c.createArrayOf("text", references));
                ps.setArray(9, c.createArrayOf("text", gateways));
                ps.setArray(10, c.createArrayOf("text", providerIds));
                ps.setArray(11, c.createArrayOf("text", acceptedAt));
                ps.setArray(12, c.createArrayOf("text", updatedAt));
                ps.setArray(13, c.createArrayOf("text", dueAt));
                ps.setArray(14, c.createArrayOf("text", errors));
                return ps.executeUpdate();
            }
        });
    }
}
