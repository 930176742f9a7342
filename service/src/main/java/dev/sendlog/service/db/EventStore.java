package dev.sendlog.service.db;

import static dev.sendlog.schema.jooq.Tables.MESSAGE_EVENTS;

import dev.sendlog.events.EncodedEvent;
import dev.sendlog.events.EventCodec;
import dev.sendlog.events.EventType;
import dev.sendlog.events.StoredEvent;
import dev.sendlog.schema.jooq.tables.records.MessageEventsRecord;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jooq.DSLContext;

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

    /**
     * One statement however many events: arrays bound once and unnested server-side, which costs a
     * fraction of rendering a multi-row VALUES list per call (this is the hottest write of the pipeline).
     */
    private static final String APPEND_SQL = """
            INSERT INTO message_events (message_id, seq, shard, type, version, actor, at, data)
            SELECT m, s, sh, ty, v, a, at::timestamptz, d::jsonb
            FROM unnest(?::uuid[], ?::int4[], ?::int2[], ?::text[], ?::int2[], ?::text[], ?::text[], ?::text[])
                 AS t(m, s, sh, ty, v, a, at, d)
            ORDER BY m, s
            ON CONFLICT (message_id, seq) DO NOTHING
            RETURNING message_id, seq""";

    /** Appends the events in {@code tx}; returns the keys that were written (the others lost their race). */
    public Set<AppendKey> append(DSLContext tx, Collection<NewEvent> events) {
        if (events.isEmpty()) {
            return Set.of();
        }
        int n = events.size();
        UUID[] ids = new UUID[n];
        Integer[] seqs = new Integer[n];
        Short[] shards = new Short[n];
        String[] types = new String[n];
        Short[] versions = new Short[n];
        String[] actors = new String[n];
        String[] ats = new String[n];
        String[] data = new String[n];
        int i = 0;
        for (NewEvent e : events) {
            EncodedEvent encoded = codec.encode(e.event());
            ids[i] = e.messageId();
            seqs[i] = e.seq();
            shards[i] = e.shard();
            types[i] = encoded.type().name();
            versions[i] = (short) encoded.version();
            actors[i] = e.actor();
            ats[i] = e.at().toString();
            data[i] = encoded.json();
            i++;
        }
        return tx.connectionResult(c -> {
            Set<AppendKey> written = new HashSet<>();
            try (PreparedStatement ps = c.prepareStatement(APPEND_SQL)) {
                ps.setArray(1, c.createArrayOf("uuid", ids));
                ps.setArray(2, c.createArrayOf("int4", seqs));
                ps.setArray(3, c.createArrayOf("int2", shards));
                ps.setArray(4, c.createArrayOf("text", types));
                ps.setArray(5, c.createArrayOf("int2", versions));
                ps.setArray(6, c.createArrayOf("text", actors));
                ps.setArray(7, c.createArrayOf("text", ats));
                ps.setArray(8, c.createArrayOf("text", data));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        written.add(new AppendKey(rs.getObject(1, UUID.class), rs.getInt(2)));
                    }
                }
            }
            return written;
        });
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
