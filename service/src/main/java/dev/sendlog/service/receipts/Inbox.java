package dev.sendlog.service.receipts;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import dev.sendlog.service.log.BoundedWait;
import dev.sendlog.service.log.GroupCommit;
import dev.sendlog.service.queue.JobStream;
import io.dropwizard.lifecycle.Managed;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The callback inbox: a verified callback is stored raw (group commit) before it is answered, then queued on
 * the callback stream. Queueing is best effort: a row that did not make it onto the stream is queued again by
 * the sweeper, so a Redis outage delays receipts but loses none. A callback that cannot be stored (the queue full, the
 * commit not done within {@code storeTimeout}, the write failed) raises {@link NotStored}, which both intake paths
 * answer 503 with Retry-After: the provider sends it again. Counted in {@code callbacks.store.unavailable}.
 */
public final class Inbox implements Managed {
    private static final Logger LOG = LoggerFactory.getLogger(Inbox.class);
    private static final String INSERT_SQL = "INSERT INTO callback_inbox (gateway, received_at, body, body_hash) "
            + "VALUES (?, ?::timestamptz, ?, ?) RETURNING id";
    private static final String FIND_SQL = """
            SELECT i.id, i.gateway, i.body_hash FROM callback_inbox i
            JOIN unnest(?::text[], ?::bytea[]) AS k(g, h) ON i.gateway = k.g AND i.body_hash = k.h""";
    private static final String UNIQUE_VIOLATION = "23505";
    private static final int MAX_TRIES = 5;

    private final DSLContext dsl;
    private final JobStream stream;
    private final InstantSource clock;
    private final GroupCommit<InboxItem> commits;
    private final Counter stored;
    private final Counter replayed;
    private final Counter queueFailures;
    private final Counter unavailable;
    private final java.time.Duration storeTimeout;
    /**
     * Each statement's bound, so that a write waiting on a lock or a stuck server gives up too: when the group commit
     * is idle the write runs on the request's own thread, where the wait for the commit has no timeout of its own.
     */
    private final int queryTimeoutSeconds;

    public Inbox(
            DSLContext dsl,
            JobStream stream,
            InstantSource clock,
            int writers,
            java.time.Duration storeTimeout,
            MetricRegistry metrics) {
        this.dsl = dsl;
        this.storeTimeout = storeTimeout;
        this.queryTimeoutSeconds = (int) Math.max(1, (storeTimeout.toMillis() + 999) / 1000);
        this.unavailable = metrics.counter("callbacks.store.unavailable");
        this.stream = stream;
        this.clock = clock;
        this.commits = new GroupCommit<>("inbox", this::write, writers, 500, 0, 50_000, metrics);
        this.stored = metrics.counter("callbacks.stored");
        this.replayed = metrics.counter("callbacks.replayed");
        this.queueFailures = metrics.counter("callbacks.queue.failures");
    }

    /** Where a callback is stored: its inbox row, and whether that row held the same body already (a replay). */
    public record Stored(long id, boolean replayed) {}

    /** Why a callback was not stored: the caller answers 503 with Retry-After, and the provider sends it again. */
    public static final class NotStored extends IllegalStateException {
        NotStored(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * Stores the raw callback durably; returns its inbox id only after the commit. The same body again on the same
     * gateway is not stored twice: the answer names the row that holds it.
     *
     * @throws NotStored when the queue is full, the commit did not finish within {@code storeTimeout}, the write
     *                   failed or the wait was interrupted (the interrupt flag is kept)
     */
    public Stored store(String gateway, byte[] body) {
        InboxItem item = new InboxItem(gateway, body, clock.instant());
        if (!commits.offer(item)) {
            unavailable.inc();
            throw new NotStored("the inbox queue is full", null);
        }
        try {
            return BoundedWait.get(item.id(), storeTimeout);
        } catch (TimeoutException e) {
            // The commit may still land; the provider's next try is then answered with the row that holds the body.
            unavailable.inc();
            LOG.warn(
                    "a callback was not committed within {}; answered 503 so that the provider sends it again gateway={}",
                    storeTimeout,
                    gateway);
            throw new NotStored("the inbox did not commit within " + storeTimeout, e);
        } catch (InterruptedException e) {
            unavailable.inc();
            Thread.currentThread().interrupt();
            throw new NotStored("interrupted while storing", e);
        } catch (ExecutionException e) {
            unavailable.inc();
            throw new NotStored("storing the callback failed: " + e.getCause(), e.getCause());
        }
    }

    private void write(List<InboxItem> batch) {
        Map<BodyKey, Stored> result = null;
        for (int attempt = 1; result == null; attempt++) {
            try {
                result = dsl.transactionResult(cfg -> writeInTransaction(cfg.dsl(), batch));
            } catch (RuntimeException e) {
                if (attempt < MAX_TRIES && isUniqueViolation(e)) {
                    continue; // the same body stored by another batch meanwhile: read it this time
                }
                LOG.warn("storing {} callbacks failed: {}", batch.size(), e.toString());
                batch.forEach(item -> item.id().completeExceptionally(e));
                return;
            }
        }
        List<Long> fresh = new ArrayList<>();
        for (Stored s : new java.util.LinkedHashSet<>(result.values())) {
            if (!s.replayed()) {
                fresh.add(s.id());
            }
        }
        stored.inc(fresh.size());
        replayed.inc(batch.size() - fresh.size());
        try {
            stream.publish(
                    fresh.stream().map(id -> new CallbackJob(id).toFields()).toList());
        } catch (RuntimeException e) {
            queueFailures.inc(fresh.size());
            LOG.warn(
                    "queueing {} stored callbacks failed; the sweeper queues them again: {}",
                    fresh.size(),
                    e.toString());
        }
        java.util.Set<Long> answered = new java.util.HashSet<>();
        for (InboxItem item : batch) {
            Stored s = result.get(BodyKey.of(item));
            // Within one batch the second copy of a body is a replay of the first.
            item.id().complete(answered.add(s.id()) ? s : new Stored(s.id(), true));
        }
    }

    /** The body's row for each distinct (gateway, body) of the batch: found, or inserted now. */
    private Map<BodyKey, Stored> writeInTransaction(DSLContext tx, List<InboxItem> batch) {
        Map<BodyKey, InboxItem> distinct = new java.util.LinkedHashMap<>();
        batch.forEach(item -> distinct.putIfAbsent(BodyKey.of(item), item));
        Map<BodyKey, Stored> rows = new HashMap<>();
        tx.connection(c -> {
            try (PreparedStatement find = c.prepareStatement(FIND_SQL)) {
                find.setQueryTimeout(queryTimeoutSeconds);
                find.setArray(
                        1,
                        c.createArrayOf(
                                "text",
                                distinct.keySet().stream().map(BodyKey::gateway).toArray()));
                find.setArray(
                        2,
                        c.createArrayOf(
                                "bytea",
                                distinct.keySet().stream().map(BodyKey::hash).toArray(byte[][]::new)));
                try (ResultSet rs = find.executeQuery()) {
                    while (rs.next()) {
                        rows.put(new BodyKey(rs.getString(2), rs.getBytes(3)), new Stored(rs.getLong(1), true));
                    }
                }
            }
            try (PreparedStatement ps = c.prepareStatement(INSERT_SQL)) {
                ps.setQueryTimeout(queryTimeoutSeconds);
                for (Map.Entry<BodyKey, InboxItem> e : distinct.entrySet()) {
                    if (rows.containsKey(e.getKey())) {
                        continue;
                    }
                    InboxItem item = e.getValue();
                    ps.setString(1, item.gateway());
                    ps.setString(2, item.receivedAt().toString());
                    ps.setBytes(3, item.body());
                    ps.setBytes(4, e.getKey().hash());
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        rows.put(e.getKey(), new Stored(rs.getLong(1), false));
                    }
                }
            }
        });
        return rows;
    }

    /** A gateway and the SHA-256 of a body: equal for equal bytes. */
    private record BodyKey(String gateway, byte[] hash) {
        static BodyKey of(InboxItem item) {
            try {
                return new BodyKey(
                        item.gateway(),
                        java.security.MessageDigest.getInstance("SHA-256").digest(item.body()));
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException("SHA-256 is part of every JDK", e);
            }
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof BodyKey k && gateway.equals(k.gateway) && java.util.Arrays.equals(hash, k.hash);
        }

        @Override
        public int hashCode() {
            return 31 * gateway.hashCode() + java.util.Arrays.hashCode(hash);
        }
    }

    private static boolean isUniqueViolation(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof java.sql.SQLException sql && UNIQUE_VIOLATION.equals(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void start() {
        commits.start();
    }

    @Override
    public void stop() throws InterruptedException {
        commits.stop();
    }
}
