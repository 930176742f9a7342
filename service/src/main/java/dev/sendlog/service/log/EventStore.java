package dev.sendlog.service.log;

import dev.sendlog.events.EventRow;
import dev.sendlog.events.EventType;
import dev.sendlog.events.Receipt;
import dev.sendlog.events.RowCodec;
import dev.sendlog.events.StoredEvent;
import dev.sendlog.log.Actors;
import dev.sendlog.log.Histories;
import dev.sendlog.log.LogRows;
import dev.sendlog.log.LoggedRow;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jooq.DSLContext;
import org.postgresql.util.PSQLException;

/**
 * Appends typed rows to the event log and reads histories back. An append names the seq it expects to take, as a
 * plain INSERT: a unique violation on the primary key means another writer won the race; the statement, and the
 * transaction with it, fail with {@link SeqTakenException}, and the caller writes again without the taken seqs (races
 * are rare; {@code ON CONFLICT} would write two WAL records for every row to spare them). Rows of one statement are
 * sorted by (message, seq), so concurrent batches take their locks in the same order and cannot deadlock.
 *
 * <p>Only REDRIVEN rows carry the tail columns (shard, xid, position): the poller's work index holds them alone.
 */
public final class EventStore {
    private static final String UNIQUE_VIOLATION = "23505";

    private static final String APPEND_ROWS = """
            INSERT INTO message_events (message_id, seq, at, type, actor, attempt, code, kind, ref, publication, time2,
                                        gateway, provider_id, detail, detail2, packed, status, tenant, shard, xid, position)
            SELECT m, s, at::timestamptz, ty, ac, att, co, ki, rf, pu, t2::timestamptz, gw, pid, d1, d2, pk, st, te,
                   CASE WHEN ty = 7 THEN sh END,
                   CASE WHEN ty = 7 THEN pg_current_xact_id()::text::bigint END,
                   CASE WHEN ty = 7 THEN nextval('message_events_position_seq') END
            """;
    private static final String UNNEST = """
            unnest(?::uuid[], ?::int4[], ?::text[], ?::int2[], ?::int4[], ?::int2[], ?::int2[], ?::int2[], ?::int8[],
                   ?::int8[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::bytea[], ?::int2[], ?::text[],
                   ?::int2[], ?::text[], ?::text[], ?::text[], ?::text[])
                 AS t(m, s, at, ty, ac, att, co, ki, rf, pu, t2, gw, pid, d1, d2, pk, st, te, sh, wt, ws, wp, we)""";

    private static final String APPEND_SQL = APPEND_ROWS + "FROM " + UNNEST + "\nORDER BY m, s";

    /**
     * The same append, and in the same statement a webhook delivery owed (V16) for each event that changes its
     * message's status to one its tenant's registration asks for: one round trip, one transaction, so an event and the
     * delivery it owes commit together or not at all. Used only for a batch in which some event changes a status.
     */
    private static final String APPEND_WITH_WEBHOOKS_SQL =
            "WITH t AS MATERIALIZED (SELECT * FROM " + UNNEST + "),\n" + """
            owed AS (INSERT INTO webhook_deliveries (message_id, seq, tenant, status, event_at, owed_since, due_at,
                                                     provider_status, error_code)
                     SELECT t.m, t.s, t.wt, t.ws, t.at::timestamptz, t.at::timestamptz, t.at::timestamptz, t.wp, t.we
                     FROM t JOIN webhooks w ON w.tenant = t.wt AND t.ws = ANY (w.events)
                     WHERE t.wt IS NOT NULL)
            """ + APPEND_ROWS + "FROM t\nORDER BY m, s";

    private static final String TAKEN_SQL = """
            SELECT k.m, k.s FROM unnest(?::uuid[], ?::int4[]) AS k(m, s)
            WHERE EXISTS (SELECT 1 FROM message_events e WHERE e.message_id = k.m AND e.seq = k.s)""";

    private static final String READ_SQL = "SELECT " + LogRows.COLUMNS + " FROM message_events e "
            + LogRows.JOIN_PUBLICATION + " WHERE e.message_id = ANY(?) ORDER BY e.message_id, e.seq";

    private final Histories histories;
    private final Actors actors;

    public EventStore(Histories histories, Actors actors) {
        this.histories = histories;
        this.actors = actors;
    }

    /** The store with the codec as shipped, its actor names kept through {@code dataSource}. */
    public static EventStore of(javax.sql.DataSource dataSource) {
        return new EventStore(new Histories(new RowCodec(new dev.sendlog.events.EventCodec())), new Actors(dataSource));
    }

    public Histories histories() {
        return histories;
    }

    public RowCodec rows() {
        return histories.codec();
    }

    public Actors actors() {
        return actors;
    }

    /**
     * Appends the events in {@code tx}, all or none: throws {@link SeqTakenException} (the transaction is then lost)
     * when another writer holds one of their seqs.
     */
    public void append(DSLContext tx, Collection<NewEvent> events) {
        if (events.isEmpty()) {
            return;
        }
        List<NewEvent> sorted = new ArrayList<>(events);
        sorted.sort(Comparator.comparing(NewEvent::messageId).thenComparingInt(NewEvent::seq));
        int n = sorted.size();
        UUID[] ids = new UUID[n];
        Integer[] seqs = new Integer[n];
        String[] ats = new String[n];
        Short[] types = new Short[n];
        Integer[] actorIds = new Integer[n];
        Short[] attempts = new Short[n];
        Short[] codes = new Short[n];
        Short[] kinds = new Short[n];
        Long[] refs = new Long[n];
        Long[] publications = new Long[n];
        String[] times2 = new String[n];
        String[] gateways = new String[n];
        String[] providerIds = new String[n];
        String[] details = new String[n];
        String[] details2 = new String[n];
        byte[][] packed = new byte[n][];
        Short[] statuses = new Short[n];
        String[] tenants = new String[n];
        Short[] shards = new Short[n];
        String[] webhookTenants = new String[n];
        String[] webhookStatuses = new String[n];
        String[] providerStatuses = new String[n];
        String[] errorCodes = new String[n];
        boolean changesStatus = false;
        for (int i = 0; i < n; i++) {
            NewEvent e = sorted.get(i);
            EventRow r = histories.codec().toRow(e.messageId(), e.seq(), e.actor(), e.at(), e.event(), e.publication());
            ids[i] = e.messageId();
            seqs[i] = e.seq();
            ats[i] = e.at().toString();
            types[i] = r.type().code();
            actorIds[i] = actors.id(e.actor());
            attempts[i] = r.attempt();
            codes[i] = r.code();
            kinds[i] = r.kind();
            refs[i] = r.ref();
            publications[i] = r.publication();
            times2[i] = r.time2() == null ? null : r.time2().toString();
            gateways[i] = r.gateway();
            providerIds[i] = r.providerId();
            details[i] = r.detail();
            details2[i] = r.detail2();
            packed[i] = r.packed();
            statuses[i] = e.finalStatus() == null ? null : e.finalStatus().code();
            // The tenant column serves search by final status only: an event that makes nothing final leaves it empty.
            tenants[i] = e.finalStatus() == null ? null : e.tenant();
            shards[i] = r.type() == EventType.REDRIVEN ? e.shard() : null;
            if (e.statusAfter() != null) {
                webhookTenants[i] = e.tenant();
                webhookStatuses[i] = e.statusAfter().name();
                if (e.event() instanceof Receipt receipt) {
                    providerStatuses[i] = receipt.providerStatus();
                    errorCodes[i] = receipt.errorCode();
                }
                changesStatus = true;
            }
        }
        String sql = changesStatus ? APPEND_WITH_WEBHOOKS_SQL : APPEND_SQL;
        tx.connection(c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setArray(1, c.createArrayOf("uuid", ids));
                ps.setArray(2, c.createArrayOf("int4", seqs));
                ps.setArray(3, c.createArrayOf("text", ats));
                ps.setArray(4, c.createArrayOf("int2", types));
                ps.setArray(5, c.createArrayOf("int4", actorIds));
                ps.setArray(6, c.createArrayOf("int2", attempts));
                ps.setArray(7, c.createArrayOf("int2", codes));
                ps.setArray(8, c.createArrayOf("int2", kinds));
                ps.setArray(9, c.createArrayOf("int8", refs));
                ps.setArray(10, c.createArrayOf("int8", publications));
                ps.setArray(11, c.createArrayOf("text", times2));
                ps.setArray(12, c.createArrayOf("text", gateways));
                ps.setArray(13, c.createArrayOf("text", providerIds));
                ps.setArray(14, c.createArrayOf("text", details));
                ps.setArray(15, c.createArrayOf("text", details2));
                ps.setArray(16, c.createArrayOf("bytea", packed));
                ps.setArray(17, c.createArrayOf("int2", statuses));
                ps.setArray(18, c.createArrayOf("text", tenants));
                ps.setArray(19, c.createArrayOf("int2", shards));
                ps.setArray(20, c.createArrayOf("text", webhookTenants));
                ps.setArray(21, c.createArrayOf("text", webhookStatuses));
                ps.setArray(22, c.createArrayOf("text", providerStatuses));
                ps.setArray(23, c.createArrayOf("text", errorCodes));
                int inserted = ps.executeUpdate();
                if (inserted != n) {
                    throw new IllegalStateException("appended " + inserted + " of " + n + " events");
                }
            } catch (PSQLException e) {
                if (UNIQUE_VIOLATION.equals(e.getSQLState())) {
                    throw new SeqTakenException(e);
                }
                throw e;
            }
        });
    }

    /** Whether an exception (or a cause) is a lost seq race. */
    public static boolean isSeqTaken(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof SeqTakenException) {
                return true;
            }
        }
        return false;
    }

    /** Which of {@code keys} are taken by committed rows (read after a {@link SeqTakenException}). */
    public Set<AppendKey> taken(DSLContext dsl, Collection<AppendKey> keys) {
        Set<AppendKey> taken = new HashSet<>();
        if (keys.isEmpty()) {
            return taken;
        }
        UUID[] ids = keys.stream().map(AppendKey::messageId).toArray(UUID[]::new);
        Integer[] seqs = keys.stream().map(AppendKey::seq).toArray(Integer[]::new);
        dsl.connection(c -> {
            try (PreparedStatement ps = c.prepareStatement(TAKEN_SQL)) {
                ps.setArray(1, c.createArrayOf("uuid", ids));
                ps.setArray(2, c.createArrayOf("int4", seqs));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        taken.add(new AppendKey(rs.getObject(1, UUID.class), rs.getInt(2)));
                    }
                }
            }
        });
        return taken;
    }

    /**
     * The event rows of several messages, each in seq order, with the publications they name. Without the messages
     * rows: {@link dev.sendlog.service.log.MessageReader} assembles whole histories.
     */
    public Map<UUID, List<LoggedRow>> rows(DSLContext dsl, Collection<UUID> messageIds) {
        Map<UUID, List<LoggedRow>> byMessage = new HashMap<>();
        if (messageIds.isEmpty()) {
            return byMessage;
        }
        UUID[] array = messageIds.toArray(UUID[]::new);
        dsl.connection(c -> {
            try (PreparedStatement ps = c.prepareStatement(READ_SQL)) {
                ps.setArray(1, c.createArrayOf("uuid", array));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        LoggedRow row = LogRows.read(rs, 1, actors);
                        byMessage
                                .computeIfAbsent(row.messageId(), k -> new ArrayList<>())
                                .add(row);
                    }
                }
            }
        });
        return byMessage;
    }

    /** The events of rows as stored (no ACCEPTED from the messages row, no PUBLISHED from publications). */
    public List<StoredEvent> stored(List<LoggedRow> rows) {
        List<StoredEvent> events = new ArrayList<>(rows.size());
        for (LoggedRow r : rows) {
            events.add(histories.event(r));
        }
        return events;
    }
}
