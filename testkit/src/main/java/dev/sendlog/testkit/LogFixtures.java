package dev.sendlog.testkit;

import dev.sendlog.events.Accepted;
import dev.sendlog.events.EventCodec;
import dev.sendlog.events.EventRow;
import dev.sendlog.events.EventType;
import dev.sendlog.events.Published;
import dev.sendlog.events.RowCodec;
import dev.sendlog.events.Scheduled;
import dev.sendlog.events.StoredEvent;
import dev.sendlog.log.Actors;
import dev.sendlog.log.Histories;
import dev.sendlog.log.LogRows;
import dev.sendlog.log.LoggedRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Writes whole histories into the lean log as the pipeline would have (the ACCEPTED event as the messages row, each
 * PUBLISHED as a publication row that the next event names, the rest as typed rows) and reads them back as every
 * reader does, for tests that need many histories of every shape (generated ones) without running the pipeline.
 */
public final class LogFixtures {
    private final DataSource dataSource;
    private final RowCodec rows = new RowCodec(new EventCodec());
    private final Histories histories = new Histories(rows);
    private final Actors actors;

    public LogFixtures(DataSource dataSource) {
        this.dataSource = dataSource;
        this.actors = new Actors(dataSource);
    }

    public Histories histories() {
        return histories;
    }

    public Actors actors() {
        return actors;
    }

    /**
     * Writes {@code history}, which starts with ACCEPTED, for message {@code id} of {@code shard}. A SCHEDULED after it
     * is the row's send_at, as the service writes it (no event row).
     */
    public void write(UUID id, short shard, List<StoredEvent> history) throws SQLException {
        if (history.isEmpty() || !(history.getFirst().event() instanceof Accepted accepted)) {
            throw new IllegalArgumentException("a history starts with ACCEPTED");
        }
        Instant sendAt = history.size() > 1 && history.get(1).event() instanceof Scheduled s ? s.sendAt() : null;
        try (Connection c = dataSource.getConnection()) {
            try (PreparedStatement ps =
                    c.prepareStatement("INSERT INTO messages (id, tenant, shard, recipient, body, gateway, "
                            + "accepted_at, send_at) VALUES (?, ?, ?, '+4915100000000', 'b', ?, ?, ?)")) {
                ps.setObject(1, id);
                ps.setString(2, accepted.tenant());
                ps.setShort(3, shard);
                ps.setString(4, accepted.gateway());
                ps.setObject(5, OffsetDateTime.ofInstant(history.getFirst().at(), ZoneOffset.UTC));
                ps.setObject(6, sendAt == null ? null : OffsetDateTime.ofInstant(sendAt, ZoneOffset.UTC));
                ps.executeUpdate();
            }
            Long publication = null;
            for (StoredEvent e : history.subList(sendAt == null ? 1 : 2, history.size())) {
                if (e.event() instanceof Published p) {
                    publication = publish(c, id, e.seq() - 1, e, p);
                    continue;
                }
                append(c, shard, rows.toRow(id, e.seq(), e.actor(), e.at(), e.event(), publication));
                publication = null;
            }
        }
    }

    private long publish(Connection c, UUID id, int workSeq, StoredEvent e, Published p) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("""
                INSERT INTO publications (id, published_at, confirm_by, check_at, actor, message_ids, seqs, epochs)
                VALUES (nextval('publications_id_seq'), ?, ?, NULL, ?, ARRAY[?::uuid], ARRAY[?::int4], ARRAY[?::int8])
                RETURNING id""")) {
            ps.setObject(1, OffsetDateTime.ofInstant(e.at(), ZoneOffset.UTC));
            ps.setObject(2, OffsetDateTime.ofInstant(p.confirmBy(), ZoneOffset.UTC));
            ps.setInt(3, actors.id(e.actor()));
            ps.setObject(4, id);
            ps.setInt(5, workSeq);
            ps.setLong(6, p.epoch());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** Inserts one typed row (a REDRIVEN one with the tail columns the poller reads). */
    public void append(Connection c, short shard, EventRow r) throws SQLException {
        boolean work = r.type() == EventType.REDRIVEN;
        try (PreparedStatement ps = c.prepareStatement("""
                INSERT INTO message_events (message_id, seq, at, type, actor, attempt, code, kind, ref, publication, time2,
                                            gateway, provider_id, detail, detail2, packed, shard, xid, position)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
                        CASE WHEN ? THEN pg_current_xact_id()::text::bigint END,
                        CASE WHEN ? THEN nextval('message_events_position_seq') END)""")) {
            ps.setObject(1, r.messageId());
            ps.setInt(2, r.seq());
            ps.setObject(3, OffsetDateTime.ofInstant(r.at(), ZoneOffset.UTC));
            ps.setShort(4, r.type().code());
            ps.setInt(5, actors.id(r.actor()));
            ps.setObject(6, r.attempt(), Types.SMALLINT);
            ps.setObject(7, r.code(), Types.SMALLINT);
            ps.setObject(8, r.kind(), Types.SMALLINT);
            ps.setObject(9, r.ref(), Types.BIGINT);
            ps.setObject(10, r.publication(), Types.BIGINT);
            ps.setObject(11, r.time2() == null ? null : OffsetDateTime.ofInstant(r.time2(), ZoneOffset.UTC));
            ps.setString(12, r.gateway());
            ps.setString(13, r.providerId());
            ps.setString(14, r.detail());
            ps.setString(15, r.detail2());
            ps.setBytes(16, r.packed());
            ps.setObject(17, work ? shard : null, Types.SMALLINT);
            ps.setBoolean(18, work);
            ps.setBoolean(19, work);
            ps.executeUpdate();
        }
    }

    /** The history of {@code id} as the API shows it (the message row, the rows, the publications they name). */
    public List<StoredEvent> read(UUID id) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            String tenant;
            String gateway;
            Instant acceptedAt;
            Instant sendAt;
            try (PreparedStatement ps =
                    c.prepareStatement("SELECT tenant, gateway, accepted_at, send_at FROM messages WHERE id = ?")) {
                ps.setObject(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return List.of();
                    }
                    tenant = rs.getString(1);
                    gateway = rs.getString(2);
                    acceptedAt = rs.getObject(3, OffsetDateTime.class).toInstant();
                    OffsetDateTime at = rs.getObject(4, OffsetDateTime.class);
                    sendAt = at == null ? null : at.toInstant();
                }
            }
            return histories.assemble(id, tenant, gateway, acceptedAt, sendAt, rows(c, id));
        }
    }

    /** The rows of {@code id} as stored (a COMPACTED row stays one row). */
    public List<LoggedRow> rows(Connection c, UUID id) throws SQLException {
        List<LoggedRow> rows = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT " + LogRows.COLUMNS + " FROM message_events e "
                + LogRows.JOIN_PUBLICATION + " WHERE e.message_id = ? ORDER BY e.seq")) {
            ps.setObject(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(LogRows.read(rs, 1, actors));
                }
            }
        }
        return rows;
    }
}
