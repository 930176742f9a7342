package dev.sendlog.service.log;

import static dev.sendlog.schema.jooq.Tables.MESSAGES;

import dev.sendlog.events.FinalStatus;
import dev.sendlog.events.MessageIds;
import dev.sendlog.events.StoredEvent;
import dev.sendlog.log.LogRows;
import dev.sendlog.log.LoggedRow;
import dev.sendlog.projections.MessageFold;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.impl.DSL;

/**
 * Reads messages back: the row, the history (the row as ACCEPTED, the event rows, publications as PUBLISHED) and the
 * state folded from it. Status is always derived; nothing stores it except the event that made a message final, which
 * carries its final status for search.
 */
public final class MessageReader {
    /**
     * Messages and their histories in one round trip (the send worker's and the timers' hottest read). Each id is looked
     * up on its own (a lateral read, which the planner must run per id: LIMIT and OFFSET keep it from turning the reads
     * into joins that hash whole tables), so each message, its event rows and their publications are read through their
     * keys, in the partition of the message's day alone, pruned as the plan runs. One plan then serves any ids, and it
     * is planned once per connection: the array comes through a sub-select, so the planner cannot count it, every plan
     * it could make costs the same, and PostgreSQL keeps the cached one. Before, {@code m.id = ANY(?)} was pruned only
     * when planned, so each call was planned again (0.4 ms, three times the read itself, with nine day partitions; a
     * cached plan would have probed every partition instead), and publications were joined by a hash of the whole
     * table.
     */
    static final String FIND_SQL = """
            SELECT m.id, m.tenant, m.recipient, m.reference, m.gateway, m.body, m.accepted_at, %s,
                   (SELECT array_agg(r.id) FROM publications r WHERE r.id = ANY(?)) AS recorded, m.sender,
                   m.valid_until, m.send_at, m.shard, m.routed IS TRUE
            FROM unnest((SELECT ?::uuid[])) AS k(id)
            CROSS JOIN LATERAL (SELECT * FROM messages x WHERE x.id = k.id LIMIT 1) m
            LEFT JOIN LATERAL (SELECT * FROM message_events y WHERE y.message_id = m.id OFFSET 0) e ON true
            LEFT JOIN LATERAL (SELECT * FROM publications z WHERE z.id = e.publication LIMIT 1) p ON true
            ORDER BY m.id, e.seq""".formatted(LogRows.COLUMNS);

    /**
     * Messages examined at most for one page of a search by a status in flight: each is read with the final status of
     * its newest row, and only those still open are folded.
     */
    static final int IN_FLIGHT_SCAN_MAX = 2_000;

    /** Messages folded together (read with their histories in one round trip). */
    private static final int SCAN_CHUNK = 250;

    /**
     * The final status on a message's newest row, null when that row made nothing final or the message has no row yet.
     * A row carries a final status only when its event made the message final (or, for a compacted history, when the
     * snapshot's state was final), so a message whose newest row carries one is final now; one whose newest row carries
     * none may still be anywhere, and is folded.
     */
    private static final Field<Short> NEWEST_ROW_FINAL = DSL.field(
            "(SELECT e.status FROM message_events e WHERE e.message_id = {0} ORDER BY e.seq DESC LIMIT 1)",
            Short.class, MESSAGES.ID);

    private final DSLContext dsl;
    private final EventStore events;

    public MessageReader(DSLContext dsl, EventStore events) {
        this.dsl = dsl;
        this.events = events;
    }

    public EventStore events() {
        return events;
    }

    public DSLContext dsl() {
        return dsl;
    }

    public Optional<MessageDetails> find(UUID id) {
        return Optional.ofNullable(findMany(List.of(id)).get(id));
    }

    /** The messages that exist among {@code ids}, with their histories and folded states. */
    public Map<UUID, MessageDetails> findMany(Collection<UUID> ids) {
        return findMany(ids, List.of()).messages();
    }

    /** Messages and which of some publications are recorded (committed): the send worker's claim read, one round trip. */
    public record Found(Map<UUID, MessageDetails> messages, java.util.Set<Long> recordedPublications) {}

    /** As {@link #findMany(Collection)}, and which of {@code publications} are recorded, in the same round trip. */
    public Found findMany(Collection<UUID> ids, Collection<Long> publications) {
        Map<UUID, MessageDetails> found = new HashMap<>();
        java.util.Set<Long> recorded = new java.util.HashSet<>();
        if (ids.isEmpty()) {
            return new Found(found, recorded);
        }
        UUID[] array = new LinkedHashSet<>(ids).toArray(UUID[]::new); // each once: the read joins every id given
        Long[] publicationIds = publications.stream().distinct().toArray(Long[]::new);
        dsl.connection(c -> {
            try (PreparedStatement ps = c.prepareStatement(FIND_SQL)) {
                ps.setArray(1, c.createArrayOf("int8", publicationIds));
                ps.setArray(2, c.createArrayOf("uuid", array));
                try (ResultSet rs = ps.executeQuery()) {
                    boolean first = true;
                    MessageRow row = null;
                    List<LoggedRow> rows = new ArrayList<>();
                    while (rs.next()) {
                        UUID id = rs.getObject(1, UUID.class);
                        if (row == null || !row.id().equals(id)) {
                            if (row != null) {
                                found.put(row.id(), details(row, rows));
                            }
                            row = new MessageRow(
                                    id,
                                    rs.getString(2),
                                    rs.getString(3),
                                    rs.getString(4),
                                    rs.getString(5),
                                    rs.getString(6),
                                    rs.getObject(7, OffsetDateTime.class).toInstant(),
                                    rs.getString(9 + LogRows.COUNT),
                                    instant(rs.getObject(10 + LogRows.COUNT, OffsetDateTime.class)),
                                    instant(rs.getObject(11 + LogRows.COUNT, OffsetDateTime.class)),
                                    rs.getShort(12 + LogRows.COUNT),
                                    rs.getBoolean(13 + LogRows.COUNT));
                            rows = new ArrayList<>();
                        }
                        if (first) {
                            java.sql.Array r = rs.getArray(8 + LogRows.COUNT);
                            if (r != null) {
                                recorded.addAll(List.of((Long[]) r.getArray()));
                            }
                            first = false;
                        }
                        LoggedRow event = LogRows.read(rs, 8, events.actors());
                        if (event != null) {
                            rows.add(event);
                        }
                    }
                    if (row != null) {
                        found.put(row.id(), details(row, rows));
                    }
                }
            }
        });
        return new Found(found, recorded);
    }

    private static java.time.Instant instant(OffsetDateTime at) {
        return at == null ? null : at.toInstant();
    }

    private MessageDetails details(MessageRow row, List<LoggedRow> rows) {
        List<StoredEvent> history = events.histories()
                .assemble(row.id(), row.tenant(), row.gateway(), row.acceptedAt(), row.sendAt(), rows);
        return new MessageDetails(row, history, MessageFold.fold(history));
    }

    /** One page of a search, newest first. */
    public SearchResult search(SearchQuery q) {
        if (q.status() == null) {
            return byMessages(q);
        }
        FinalStatus finalStatus = FinalStatus.ofName(q.status().name());
        return finalStatus != null ? byFinalStatus(q, finalStatus) : inFlight(q);
    }

    /** The message rows' own filters, newest first. */
    private Condition messageFilters(SearchQuery q, UUID before) {
        Condition where = DSL.trueCondition();
        if (q.tenant() != null) {
            where = where.and(MESSAGES.TENANT.eq(q.tenant()));
        }
        if (q.recipient() != null) {
            where = where.and(MESSAGES.RECIPIENT.eq(q.recipient()));
        }
        if (q.reference() != null) {
            where = where.and(MESSAGES.REFERENCE.eq(q.reference()));
        }
        if (q.since() != null) {
            where = where.and(MESSAGES.ID.ge(MessageIds.lowerBound(q.since())));
        }
        if (q.until() != null) {
            where = where.and(MESSAGES.ID.lt(MessageIds.lowerBound(q.until())));
        }
        if (before != null) {
            where = where.and(MESSAGES.ID.lt(before));
        }
        return where;
    }

    private SearchResult byMessages(SearchQuery q) {
        List<UUID> ids = dsl.select(MESSAGES.ID)
                .from(MESSAGES)
                .where(messageFilters(q, q.before()))
                .orderBy(MESSAGES.ID.desc())
                .limit(q.limit() + 1)
                .fetch(MESSAGES.ID);
        return page(ids, findMany(ids), q.limit(), null);
    }

    /**
     * A final status: the entries of the final index, newest first, each checked against the folded history (an entry
     * goes stale when a late receipt overrides UNKNOWN, or support re-drives a DEAD message).
     */
    private SearchResult byFinalStatus(SearchQuery q, FinalStatus status) {
        List<MessageDetails> items = new ArrayList<>();
        UUID before = q.before();
        for (int round = 0; round < 20; round++) {
            List<UUID> candidates = finalCandidates(q, status, before, q.limit() + 1);
            if (candidates.isEmpty()) {
                return new SearchResult(items, null);
            }
            Map<UUID, MessageDetails> found = findMany(candidates);
            for (UUID id : candidates) {
                MessageDetails d = found.get(id);
                if (d != null && d.state().status() == q.status()) {
                    if (items.size() == q.limit()) {
                        return new SearchResult(items, items.getLast().row().id());
                    }
                    items.add(d);
                }
            }
            if (candidates.size() <= q.limit()) {
                return new SearchResult(items, null);
            }
            before = candidates.getLast();
        }
        return new SearchResult(items, before);
    }

    /** Ids of messages with an entry of {@code status} in the final index, newest first, distinct. */
    private List<UUID> finalCandidates(SearchQuery q, FinalStatus status, UUID before, int limit) {
        List<Object> args = new ArrayList<>();
        StringBuilder where = new StringBuilder("e.status = ?");
        args.add(status.code());
        boolean join = q.recipient() != null || q.reference() != null;
        if (q.recipient() != null) {
            where.append(" AND m.recipient = ?");
            args.add(q.recipient());
        }
        if (q.reference() != null) {
            where.append(" AND m.reference = ?");
            args.add(q.reference());
        }
        if (q.since() != null) {
            where.append(" AND e.message_id >= ?");
            args.add(MessageIds.lowerBound(q.since()));
        }
        if (q.until() != null) {
            where.append(" AND e.message_id < ?");
            args.add(MessageIds.lowerBound(q.until()));
        }
        if (before != null) {
            where.append(" AND e.message_id < ?");
            args.add(before);
        }
        String from = "message_events e" + (join ? " JOIN messages m ON m.id = e.message_id" : "");
        String sql;
        if (q.tenant() != null) {
            sql = "SELECT e.message_id FROM " + from + " WHERE e.tenant = ? AND " + where
                    + " ORDER BY e.message_id DESC LIMIT " + limit;
            args.addFirst(q.tenant());
        } else {
            // Every tenant: the index leads with the tenant, so walk its tenants (a loose index scan) and merge their
            // newest entries, rather than read the whole status across tenants.
            sql = """
                    WITH RECURSIVE t(tenant) AS (
                        SELECT min(tenant) FROM message_events WHERE status IS NOT NULL
                        UNION ALL
                        SELECT (SELECT min(x.tenant) FROM message_events x WHERE x.status IS NOT NULL AND x.tenant > t.tenant)
                        FROM t WHERE t.tenant IS NOT NULL)
                    SELECT c.message_id FROM t CROSS JOIN LATERAL (
                        SELECT e.message_id FROM %s WHERE e.tenant = t.tenant AND %s ORDER BY e.message_id DESC LIMIT %d) c
                    WHERE t.tenant IS NOT NULL
                    ORDER BY c.message_id DESC LIMIT %d""".formatted(from, where, limit, limit);
        }
        Set<UUID> ids = new LinkedHashSet<>();
        dsl.resultQuery(sql, args.toArray()).forEach(r -> ids.add(r.get(0, UUID.class)));
        return new ArrayList<>(ids);
    }

    /**
     * A status in flight (ACCEPTED, SENDING, RETRYING, SENT, IN_TRANSIT): no index holds it, since keeping one would
     * update an indexed column at every step. The messages that match the other filters are read newest first, at most
     * {@link #IN_FLIGHT_SCAN_MAX} per page, each with the final status of its newest row: a message that is final now is
     * passed over there, and only the others are folded. A page that stops at the bound says where the next one starts.
     */
    private SearchResult inFlight(SearchQuery q) {
        List<UUID> ids = new ArrayList<>(IN_FLIGHT_SCAN_MAX);
        Set<UUID> open = new HashSet<>();
        dsl.select(MESSAGES.ID, NEWEST_ROW_FINAL)
                .from(MESSAGES)
                .where(messageFilters(q, q.before()))
                .orderBy(MESSAGES.ID.desc())
                .limit(IN_FLIGHT_SCAN_MAX)
                .forEach(r -> {
                    ids.add(r.value1());
                    if (r.value2() == null) {
                        open.add(r.value1());
                    }
                });
        List<MessageDetails> items = new ArrayList<>();
        Map<UUID, MessageDetails> found = Map.of();
        int folded = 0; // ids[0, folded) were read; the open ones among the next SCAN_CHUNK are read together
        for (int i = 0; i < ids.size(); i++) {
            UUID id = ids.get(i);
            if (!open.contains(id)) {
                continue;
            }
            if (i >= folded) {
                folded = Math.min(ids.size(), i + SCAN_CHUNK);
                found = findMany(
                        ids.subList(i, folded).stream().filter(open::contains).toList());
            }
            MessageDetails d = found.get(id);
            if (d != null && d.state().status() == q.status()) {
                if (items.size() == q.limit()) {
                    return new SearchResult(items, items.getLast().row().id());
                }
                items.add(d);
            }
        }
        return new SearchResult(items, ids.size() < IN_FLIGHT_SCAN_MAX ? null : ids.getLast());
    }

    private static SearchResult page(List<UUID> ids, Map<UUID, MessageDetails> found, int limit, UUID fallbackNext) {
        List<MessageDetails> items = new ArrayList<>(Math.min(ids.size(), limit));
        for (UUID id : ids) {
            MessageDetails d = found.get(id);
            if (d == null) {
                continue;
            }
            if (items.size() == limit) {
                return new SearchResult(items, items.getLast().row().id());
            }
            items.add(d);
        }
        return new SearchResult(items, fallbackNext);
    }
}
