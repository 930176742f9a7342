package dev.sendlog.service.db;

import static dev.sendlog.schema.jooq.Tables.MESSAGE_EVENTS;

import dev.sendlog.events.EncodedEvent;
import dev.sendlog.events.EventCodec;
import dev.sendlog.events.EventType;
import dev.sendlog.events.StoredEvent;
import dev.sendlog.schema.jooq.tables.records.MessageEventsRecord;
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
import org.jooq.InsertValuesStep8;
import org.jooq.JSONB;
import org.jooq.Record2;

/**
 * Appends to and reads from the event log. An append names the seq it expects to take; when another
 * writer already holds that seq the row is not written ({@code ON CONFLICT DO NOTHING}) and the caller
 * learns it lost, re-reads and decides again. Rows of one statement are sorted by (message, seq), so
 * concurrent batches take their locks in the same order and cannot deadlock on each other.
 */
public final class EventStore {
    private final EventCodec codec;

    public EventStore(EventCodec codec) {
        this.codec = codec;
    }

    public EventCodec codec() {
        return codec;
    }

    /** Appends the events in {@code tx}; returns the keys that were written (the others lost their race). */
    public Set<AppendKey> append(DSLContext tx, Collection<NewEvent> events) {
        if (events.isEmpty()) {
            return Set.of();
        }
        List<NewEvent> sorted = new ArrayList<>(events);
        sorted.sort(Comparator.comparing(NewEvent::messageId).thenComparingInt(NewEvent::seq));
        InsertValuesStep8<MessageEventsRecord, UUID, Integer, Short, String, Short, String, java.time.Instant, JSONB> insert =
                tx.insertInto(MESSAGE_EVENTS, MESSAGE_EVENTS.MESSAGE_ID, MESSAGE_EVENTS.SEQ, MESSAGE_EVENTS.SHARD,
                        MESSAGE_EVENTS.TYPE, MESSAGE_EVENTS.VERSION, MESSAGE_EVENTS.ACTOR, MESSAGE_EVENTS.AT,
                        MESSAGE_EVENTS.DATA);
        for (NewEvent e : sorted) {
            EncodedEvent encoded = codec.encode(e.event());
            insert = insert.values(e.messageId(), e.seq(), e.shard(), encoded.type().name(), (short) encoded.version(),
                    e.actor(), e.at(), JSONB.valueOf(encoded.json()));
        }
        Set<AppendKey> written = new HashSet<>();
        for (Record2<UUID, Integer> r : insert.onConflictDoNothing()
                .returningResult(MESSAGE_EVENTS.MESSAGE_ID, MESSAGE_EVENTS.SEQ).fetch()) {
            written.add(new AppendKey(r.value1(), r.value2()));
        }
        return written;
    }

    /** Appends one event; true when it won its seq. */
    public boolean appendOne(DSLContext tx, NewEvent event) {
        return !append(tx, List.of(event)).isEmpty();
    }

    /** The whole history of one message in seq order (empty when there is none). */
    public List<StoredEvent> read(DSLContext dsl, UUID messageId) {
        List<StoredEvent> events = new ArrayList<>();
        for (MessageEventsRecord r : dsl.selectFrom(MESSAGE_EVENTS)
                .where(MESSAGE_EVENTS.MESSAGE_ID.eq(messageId))
                .orderBy(MESSAGE_EVENTS.SEQ)
                .fetch()) {
            events.add(decode(r));
        }
        return events;
    }

    /** The histories of several messages at once, each in seq order. */
    public Map<UUID, List<StoredEvent>> readMany(DSLContext dsl, Collection<UUID> messageIds) {
        Map<UUID, List<StoredEvent>> byMessage = new HashMap<>();
        if (messageIds.isEmpty()) {
            return byMessage;
        }
        for (MessageEventsRecord r : dsl.selectFrom(MESSAGE_EVENTS)
                .where(MESSAGE_EVENTS.MESSAGE_ID.in(messageIds))
                .orderBy(MESSAGE_EVENTS.MESSAGE_ID, MESSAGE_EVENTS.SEQ)
                .fetch()) {
            byMessage.computeIfAbsent(r.getMessageId(), k -> new ArrayList<>()).add(decode(r));
        }
        return byMessage;
    }

    public StoredEvent decode(MessageEventsRecord r) {
        EventType type = EventType.valueOf(r.getType());
        return new StoredEvent(r.getMessageId(), r.getSeq(), r.getAt(), r.getActor(),
                codec.decode(r.getMessageId(), type, r.getVersion(), r.getData().data()));
    }
}
