package dev.sendlog.service.core;

import static dev.sendlog.schema.jooq.Tables.MESSAGES;
import static dev.sendlog.schema.jooq.Tables.MESSAGE_STATUS;

import dev.sendlog.events.EventType;
import dev.sendlog.events.MessageIds;
import dev.sendlog.events.StoredEvent;
import dev.sendlog.projections.MessageFold;
import dev.sendlog.schema.jooq.tables.records.MessagesRecord;
import dev.sendlog.service.db.EventStore;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/** Reads messages back: the row, the events, and the state folded from them (status is always derived). */
public final class MessageReader {
    private final DSLContext dsl;
    private final EventStore events;

    public MessageReader(DSLContext dsl, EventStore events) {
        this.dsl = dsl;
        this.events = events;
    }

    /**
     * Messages and their histories in one round trip (the send worker's and projector's hottest read). The ids
     * are given to both sides of the join so PostgreSQL prunes both tables to the partitions of their days.
     */
    private static final String FIND_SQL = """
            SELECT m.id, m.tenant, m.recipient, m.reference, m.gateway, m.body, m.accepted_at,
                   e.seq, e.type, e.version, e.at, e.actor, e.data::text
            FROM messages m JOIN message_events e ON e.message_id = m.id
            WHERE m.id = ANY(?) AND e.message_id = ANY(?)
            ORDER BY m.id, e.seq""";

    public Optional<MessageDetails> find(UUID id) {
        return Optional.ofNullable(findMany(List.of(id)).get(id));
    }

    /** The messages that exist among {@code ids}, with their histories and folded states. */
    public Map<UUID, MessageDetails> findMany(Collection<UUID> ids) {
        Map<UUID, MessageDetails> found = new HashMap<>();
        if (ids.isEmpty()) {
            return found;
        }
        UUID[] array = ids.toArray(UUID[]::new);
        dsl.connection(c -> {
            try (PreparedStatement ps = c.prepareStatement(FIND_SQL)) {
                ps.setArray(1, c.createArrayOf("uuid", array));
                ps.setArray(2, c.createArrayOf("uuid", array));
                try (ResultSet rs = ps.executeQuery()) {
                    MessageRow row = null;
                    List<StoredEvent> history = new ArrayList<>();
                    while (rs.next()) {
                        UUID id = rs.getObject(1, UUID.class);
                        if (row == null || !row.id().equals(id)) {
                            if (row != null) {
                                found.put(row.id(), new MessageDetails(row, history, MessageFold.fold(history)));
                            }
                            row = new MessageRow(id, rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
                                    rs.getString(6), rs.getObject(7, OffsetDateTime.class).toInstant());
                            history = new ArrayList<>();
                        }
                        EventType type = EventType.valueOf(rs.getString(9));
                        history.add(new StoredEvent(id, rs.getInt(8), rs.getObject(11, OffsetDateTime.class).toInstant(),
                                rs.getString(12), events.codec().decode(id, type, rs.getInt(10), rs.getString(13))));
                    }
                    if (row != null) {
                        found.put(row.id(), new MessageDetails(row, history, MessageFold.fold(history)));
                    }
                }
            }
        });
        return found;
    }

    /** One page of a search, newest first, with one item more than asked when there is a next page. */
    public List<MessageDetails> search(SearchQuery q) {
        if (q.status() != null) {
            return searchByStatus(q);
        }
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
        if (q.before() != null) {
            where = where.and(MESSAGES.ID.lt(q.before()));
        }
        List<MessagesRecord> rows = dsl.selectFrom(MESSAGES).where(where).orderBy(MESSAGES.ID.desc()).limit(q.limit() + 1).fetch();
        Map<UUID, List<StoredEvent>> histories = events.readMany(dsl, rows.stream().map(MessagesRecord::getId).toList());
        List<MessageDetails> page = new ArrayList<>(rows.size());
        for (MessagesRecord r : rows) {
            List<StoredEvent> history = histories.get(r.getId());
            if (history == null) {
                throw new IllegalStateException("message " + r.getId() + " has a row but no events");
            }
            page.add(new MessageDetails(row(r), history, MessageFold.fold(history)));
        }
        return page;
    }

    private List<MessageDetails> searchByStatus(SearchQuery q) {
        Condition where = MESSAGE_STATUS.STATUS.eq(q.status().name());
        if (q.tenant() != null) {
            where = where.and(MESSAGE_STATUS.TENANT.eq(q.tenant()));
        }
        // Recipient and reference live on the message's row only: join it when the search names one.
        boolean joinMessages = q.recipient() != null || q.reference() != null;
        if (q.recipient() != null) {
            where = where.and(MESSAGES.RECIPIENT.eq(q.recipient()));
        }
        if (q.reference() != null) {
            where = where.and(MESSAGES.REFERENCE.eq(q.reference()));
        }
        if (q.since() != null) {
            where = where.and(MESSAGE_STATUS.MESSAGE_ID.ge(MessageIds.lowerBound(q.since())));
        }
        if (q.until() != null) {
            where = where.and(MESSAGE_STATUS.MESSAGE_ID.lt(MessageIds.lowerBound(q.until())));
        }
        if (q.before() != null) {
            where = where.and(MESSAGE_STATUS.MESSAGE_ID.lt(q.before()));
        }
        var from = joinMessages
                ? MESSAGE_STATUS.join(MESSAGES).on(MESSAGES.ID.eq(MESSAGE_STATUS.MESSAGE_ID))
                : MESSAGE_STATUS;
        List<UUID> ids = dsl.select(MESSAGE_STATUS.MESSAGE_ID).from(from).where(where)
                .orderBy(MESSAGE_STATUS.MESSAGE_ID.desc()).limit(q.limit() + 1).fetch(MESSAGE_STATUS.MESSAGE_ID);
        Map<UUID, MessageDetails> found = findMany(ids);
        List<MessageDetails> page = new ArrayList<>(ids.size());
        for (UUID id : ids) {
            MessageDetails d = found.get(id);
            if (d != null) {
                page.add(d);
            }
        }
        return page;
    }

    private static MessageRow row(MessagesRecord r) {
        return new MessageRow(r.getId(), r.getTenant(), r.getRecipient(), r.getReference(), r.getGateway(), r.getBody(),
                r.getAcceptedAt());
    }
}
