package dev.sendlog.service.core;

import static dev.sendlog.schema.jooq.Tables.MESSAGES;

import dev.sendlog.events.MessageIds;
import dev.sendlog.events.StoredEvent;
import dev.sendlog.projections.MessageFold;
import dev.sendlog.schema.jooq.tables.records.MessagesRecord;
import dev.sendlog.service.db.EventStore;
import java.util.ArrayList;
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

    public Optional<MessageDetails> find(UUID id) {
        MessagesRecord r = dsl.selectFrom(MESSAGES).where(MESSAGES.ID.eq(id)).fetchOne();
        if (r == null) {
            return Optional.empty();
        }
        List<StoredEvent> history = events.read(dsl, id);
        if (history.isEmpty()) {
            throw new IllegalStateException("message " + id + " has a row but no events");
        }
        return Optional.of(new MessageDetails(row(r), history, MessageFold.fold(history)));
    }

    /** One page of a search, newest first, with one item more than asked when there is a next page. */
    public List<MessageDetails> search(SearchQuery q) {
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

    private static MessageRow row(MessagesRecord r) {
        return new MessageRow(r.getId(), r.getTenant(), r.getRecipient(), r.getReference(), r.getGateway(), r.getBody(),
                r.getAcceptedAt());
    }
}
