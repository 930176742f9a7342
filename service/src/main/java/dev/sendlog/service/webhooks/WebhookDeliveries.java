package dev.sendlog.service.webhooks;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jooq.DSLContext;

/**
 * The deliveries status webhooks owe (V16, {@code webhook_deliveries}) and their attempts. Rows are written owed by the
 * statement that appends their event (EventStore, AcceptWriter); here they are leased to the stream, read by the
 * worker, and closed as delivered or dead, or given their next retry. Every write of an outcome names the lease its
 * job was published under, so a stale job records nothing.
 */
public final class WebhookDeliveries {
    public static final short OWED = 0;
    public static final short DELIVERED = 1;
    public static final short DEAD = 2;

    /** A delivery as its job sees it. */
    public record Delivery(
            UUID messageId,
            int seq,
            String tenant,
            String status,
            Instant eventAt,
            Instant owedSince,
            short state,
            int attempts,
            int lease) {
        public String eventId() {
            return eventId(messageId, seq);
        }

        public static String eventId(UUID messageId, int seq) {
            return messageId + ":" + seq;
        }
    }

    /**
     * What one attempt needs, read in one statement: the delivery, its tenant's registration now (null fields when the
     * tenant has none), and what the body tells besides (the message's reference; the receipt's words, copied at owe time).
     */
    public record ToDeliver(
            Delivery delivery,
            String url,
            byte[] secret,
            byte[] previousSecret,
            Instant previousUntil,
            String reference,
            String providerStatus,
            String errorCode) {}

    /** A delivery put on the stream: the job's fields. */
    public record Leased(UUID messageId, int seq, String tenant, int lease) {}

    /** A dead delivery as support lists it. */
    public record DeadView(
            String eventId,
            String messageId,
            int seq,
            String tenant,
            String status,
            Instant at,
            int attempts,
            String lastOutcome,
            Instant deadAt) {}

    /** What the metrics and the health check read: owed deliveries and the age of the oldest. */
    public record Backlog(long owed, Instant oldestOwedSince) {}

    private static final String LEASE_SQL = """
            UPDATE webhook_deliveries d SET lease = d.lease + 1, due_at = ?::timestamptz
            FROM (SELECT message_id, seq FROM webhook_deliveries
                  WHERE state = 0 AND due_at <= ?::timestamptz ORDER BY due_at LIMIT ? FOR UPDATE SKIP LOCKED) c
            WHERE d.message_id = c.message_id AND d.seq = c.seq
            RETURNING d.message_id, d.seq, d.tenant, d.lease""";

    private static final String READ_SQL = """
            SELECT message_id, seq, tenant, status, event_at, owed_since, state, attempts, lease FROM webhook_deliveries
            WHERE message_id = ? AND seq = ?""";

    private static final String TO_DELIVER_SQL = """
            SELECT d.message_id, d.seq, d.tenant, d.status, d.event_at, d.owed_since, d.state, d.attempts, d.lease,
                   w.url, w.secret, w.previous_secret, w.previous_until,
                   (SELECT m.reference FROM messages m WHERE m.id = d.message_id), d.provider_status, d.error_code
            FROM webhook_deliveries d LEFT JOIN webhooks w ON w.tenant = d.tenant
            WHERE d.message_id = ? AND d.seq = ?""";

    private static final String RECORD_SQL = """
            WITH u AS (UPDATE webhook_deliveries SET state = ?, due_at = ?, attempts = ?, last_outcome = ?, done_at = ?
                       WHERE message_id = ? AND seq = ? AND state = 0 AND lease = ?
                       RETURNING message_id, seq, attempts, last_outcome),
                 a AS (INSERT INTO webhook_attempts (message_id, seq, attempt, at, http_status, outcome)
                       SELECT message_id, seq, attempts, ?, ?, last_outcome FROM u)
            SELECT count(*) FROM u""";

    private final DSLContext dsl;

    public WebhookDeliveries(DSLContext dsl) {
        this.dsl = dsl;
    }

    /**
     * Leases up to {@code limit} deliveries due by {@code now}: each is due again at {@code now + leaseTimeout} unless
     * its job records an outcome first, so a job lost anywhere (the stream, a crashed worker) is published again then.
     * Committed before the jobs are published: a publish that fails only delays them by the lease.
     */
    public List<Leased> lease(Instant now, Duration leaseTimeout, int limit) {
        List<Leased> out = new ArrayList<>();
        dsl.connection(c -> {
            try (PreparedStatement ps = c.prepareStatement(LEASE_SQL)) {
                ps.setString(1, now.plus(leaseTimeout).toString());
                ps.setString(2, now.toString());
                ps.setInt(3, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new Leased(rs.getObject(1, UUID.class), rs.getInt(2), rs.getString(3), rs.getInt(4)));
                    }
                }
            }
        });
        return out;
    }

    /** The delivery with what its attempt needs, in one round trip; empty when there is no such delivery. */
    public Optional<ToDeliver> toDeliver(UUID messageId, int seq) {
        return dsl.connectionResult(c -> {
            try (PreparedStatement ps = c.prepareStatement(TO_DELIVER_SQL)) {
                ps.setObject(1, messageId);
                ps.setInt(2, seq);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.<ToDeliver>empty();
                    }
                    Delivery d = new Delivery(
                            rs.getObject(1, UUID.class),
                            rs.getInt(2),
                            rs.getString(3),
                            rs.getString(4),
                            rs.getTimestamp(5).toInstant(),
                            rs.getTimestamp(6).toInstant(),
                            rs.getShort(7),
                            rs.getInt(8),
                            rs.getInt(9));
                    Timestamp until = rs.getTimestamp(13);
                    return Optional.of(new ToDeliver(
                            d,
                            rs.getString(10),
                            rs.getBytes(11),
                            rs.getBytes(12),
                            until == null ? null : until.toInstant(),
                            rs.getString(14),
                            rs.getString(15),
                            rs.getString(16)));
                }
            }
        });
    }

    public Optional<Delivery> find(UUID messageId, int seq) {
        List<Delivery> found = new ArrayList<>(1);
        dsl.connection(c -> {
            try (PreparedStatement ps = c.prepareStatement(READ_SQL)) {
                ps.setObject(1, messageId);
                ps.setInt(2, seq);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        found.add(new Delivery(
                                rs.getObject(1, UUID.class),
                                rs.getInt(2),
                                rs.getString(3),
                                rs.getString(4),
                                rs.getTimestamp(5).toInstant(),
                                rs.getTimestamp(6).toInstant(),
                                rs.getShort(7),
                                rs.getInt(8),
                                rs.getInt(9)));
                    }
                }
            }
        });
        return found.stream().findFirst();
    }

    /**
     * Records an attempt and what follows it, in one transaction: {@code nextDue} null closes the delivery in
     * {@code closeAs} (DELIVERED or DEAD), otherwise it is due again then. False, and nothing written, when the
     * delivery is no longer the job's (closed, or leased again since).
     */
    public boolean record(Delivery d, Instant at, Integer httpStatus, String outcome, short closeAs, Instant nextDue) {
        int attempt = d.attempts() + 1;
        String shortOutcome = outcome.length() > 500 ? outcome.substring(0, 500) : outcome;
        // One statement, so one round trip and atomic without a transaction of its own: the attempt row is written
        // only when the update found the delivery still the job's.
        return dsl.connectionResult(c -> {
            try (PreparedStatement ps = c.prepareStatement(RECORD_SQL)) {
                boolean close = nextDue == null;
                ps.setShort(1, close ? closeAs : OWED);
                ps.setTimestamp(2, close ? null : Timestamp.from(nextDue));
                ps.setInt(3, attempt);
                ps.setString(4, shortOutcome);
                ps.setTimestamp(5, close ? Timestamp.from(at) : null);
                ps.setObject(6, d.messageId());
                ps.setInt(7, d.seq());
                ps.setInt(8, d.lease());
                ps.setTimestamp(9, Timestamp.from(at));
                if (httpStatus == null) {
                    ps.setNull(10, java.sql.Types.SMALLINT);
                } else {
                    ps.setShort(10, (short) Math.max(Short.MIN_VALUE, Math.min(Short.MAX_VALUE, httpStatus)));
                }
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getInt(1) == 1;
                }
            }
        });
    }

    /**
     * Closes a delivery DEAD without an attempt (nothing was sent: the tenant has no registration any more). False when
     * it was not the job's to close.
     */
    public boolean closeUnsent(Delivery d, Instant at, String why) {
        return record(d, at, null, why, DEAD, null);
    }

    /** Dead deliveries, newest first; {@code tenant} null for all; {@code before} the last row of the previous page. */
    public List<DeadView> dead(String tenant, int limit, DeadCursor before) {
        StringBuilder sql =
                new StringBuilder("SELECT message_id, seq, tenant, status, event_at, attempts, last_outcome, done_at "
                        + "FROM webhook_deliveries WHERE state = 2");
        List<Object> args = new ArrayList<>();
        if (tenant != null) {
            sql.append(" AND tenant = ?");
            args.add(tenant);
        }
        if (before != null) {
            sql.append(" AND (done_at, message_id, seq) < (?, ?, ?)");
            args.add(Timestamp.from(before.doneAt()));
            args.add(before.messageId());
            args.add(before.seq());
        }
        sql.append(" ORDER BY done_at DESC, message_id DESC, seq DESC LIMIT ?");
        args.add(limit);
        List<DeadView> out = new ArrayList<>();
        dsl.connection(c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
                for (int i = 0; i < args.size(); i++) {
                    ps.setObject(i + 1, args.get(i));
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        UUID id = rs.getObject(1, UUID.class);
                        int seq = rs.getInt(2);
                        out.add(new DeadView(
                                Delivery.eventId(id, seq),
                                id.toString(),
                                seq,
                                rs.getString(3),
                                rs.getString(4),
                                rs.getTimestamp(5).toInstant(),
                                rs.getInt(6),
                                rs.getString(7),
                                rs.getTimestamp(8).toInstant()));
                    }
                }
            }
        });
        return out;
    }

    /** Where a page of dead deliveries continues: the last row shown. Written as {@code <done_at micros>~<event id>}. */
    public record DeadCursor(Instant doneAt, UUID messageId, int seq) {
        public String encode() {
            long micros = doneAt.getEpochSecond() * 1_000_000L + doneAt.getNano() / 1_000;
            return micros + "~" + Delivery.eventId(messageId, seq);
        }

        /** Null when {@code text} is not a cursor {@link #encode} wrote. */
        public static DeadCursor parse(String text) {
            try {
                int tilde = text.indexOf('~');
                long micros = Long.parseLong(text.substring(0, tilde));
                EventId id = EventId.parse(text.substring(tilde + 1));
                if (id == null) {
                    return null;
                }
                return new DeadCursor(
                        Instant.ofEpochSecond(
                                Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L),
                        id.messageId(),
                        id.seq());
            } catch (RuntimeException e) {
                return null;
            }
        }
    }

    /** An event id, {@code <message id>:<seq>}, as the body and the header carry it. */
    public record EventId(UUID messageId, int seq) {
        /** Null when {@code text} is not an event id. */
        public static EventId parse(String text) {
            if (text == null) {
                return null;
            }
            int colon = text.lastIndexOf(':');
            if (colon != 36) {
                return null;
            }
            try {
                int seq = Integer.parseInt(text.substring(colon + 1));
                UUID id = UUID.fromString(text.substring(0, colon));
                return seq > 0 && id.toString().equals(text.substring(0, colon)) ? new EventId(id, seq) : null;
            } catch (IllegalArgumentException e) {
                return null;
            }
        }
    }

    /**
     * Owes a DEAD delivery again: due now, its 24 hours of retries starting again. Empty when there is no such delivery;
     * false when it exists and is not DEAD (nothing changed).
     */
    public Optional<Boolean> redrive(UUID messageId, int seq, String tenantOrNull, Instant now) {
        return dsl.transactionResult(cfg -> {
            DSLContext tx = cfg.dsl();
            var row = tx.resultQuery(
                            "SELECT state, tenant FROM webhook_deliveries WHERE message_id = ? AND seq = ? FOR UPDATE",
                            messageId,
                            seq)
                    .fetchOptional();
            if (row.isEmpty()
                    || (tenantOrNull != null && !tenantOrNull.equals(row.get().get(1, String.class)))) {
                return Optional.<Boolean>empty();
            }
            if (row.get().get(0, Short.class) != DEAD) {
                return Optional.of(false);
            }
            tx.execute(
                    "UPDATE webhook_deliveries SET state = 0, due_at = ?::timestamptz, owed_since = ?::timestamptz, "
                            + "done_at = NULL WHERE message_id = ? AND seq = ?",
                    now.toString(),
                    now.toString(),
                    messageId,
                    seq);
            return Optional.of(true);
        });
    }

    /** A message's delivery with its attempts in order: for its history. */
    public record OfMessage(int seq, String status, short state, int attempts, List<Attempt> attemptLog) {}

    public record Attempt(int attempt, Instant at, Integer httpStatus, String outcome) {}

    /** The deliveries {@code messageId} owes or owed, by seq, each with its attempts. */
    public List<OfMessage> ofMessage(UUID messageId) {
        return dsl.connectionResult(c -> {
            java.util.LinkedHashMap<Integer, OfMessage> bySeq = new java.util.LinkedHashMap<>();
            try (PreparedStatement ps =
                    c.prepareStatement("SELECT seq, status, state, attempts FROM webhook_deliveries "
                            + "WHERE message_id = ? ORDER BY seq")) {
                ps.setObject(1, messageId);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        bySeq.put(
                                rs.getInt(1),
                                new OfMessage(
                                        rs.getInt(1),
                                        rs.getString(2),
                                        rs.getShort(3),
                                        rs.getInt(4),
                                        new ArrayList<>()));
                    }
                }
            }
            if (bySeq.isEmpty()) {
                return List.of();
            }
            try (PreparedStatement ps =
                    c.prepareStatement("SELECT seq, attempt, at, http_status, outcome FROM webhook_attempts "
                            + "WHERE message_id = ? ORDER BY seq, attempt")) {
                ps.setObject(1, messageId);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        OfMessage d = bySeq.get(rs.getInt(1));
                        short http = rs.getShort(4);
                        Integer status = rs.wasNull() ? null : (int) http;
                        if (d != null) {
                            d.attemptLog()
                                    .add(new Attempt(
                                            rs.getInt(2), rs.getTimestamp(3).toInstant(), status, rs.getString(5)));
                        }
                    }
                }
            }
            return List.copyOf(bySeq.values());
        });
    }

    /** A state code as the API names it. */
    public static String stateName(short state) {
        return switch (state) {
            case OWED -> "OWED";
            case DELIVERED -> "DELIVERED";
            case DEAD -> "DEAD";
            default -> throw new IllegalArgumentException("no delivery state " + state);
        };
    }

    public Backlog backlog() {
        return dsl.connectionResult(c -> {
            try (PreparedStatement ps = c.prepareStatement(
                            "SELECT count(*), min(owed_since) FROM webhook_deliveries WHERE state = 0");
                    ResultSet rs = ps.executeQuery()) {
                rs.next();
                Timestamp oldest = rs.getTimestamp(2);
                return new Backlog(rs.getLong(1), oldest == null ? null : oldest.toInstant());
            }
        });
    }

    /** Deletes delivered rows (and their attempts) closed before {@code before}, at most {@code limit}; returns how many. */
    public int purgeDelivered(Instant before, int limit) {
        return dsl.transactionResult(cfg -> cfg.dsl().connectionResult(c -> {
            try (PreparedStatement ps = c.prepareStatement("""
                    WITH gone AS (DELETE FROM webhook_deliveries WHERE (message_id, seq) IN (
                                      SELECT message_id, seq FROM webhook_deliveries WHERE state = 1 AND done_at < ?
                                      LIMIT ?)
                                  RETURNING message_id, seq),
                         attempts AS (DELETE FROM webhook_attempts a USING gone g
                                      WHERE a.message_id = g.message_id AND a.seq = g.seq)
                    SELECT count(*) FROM gone""")) {
                ps.setTimestamp(1, Timestamp.from(before));
                ps.setInt(2, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getInt(1);
                }
            }
        }));
    }
}
