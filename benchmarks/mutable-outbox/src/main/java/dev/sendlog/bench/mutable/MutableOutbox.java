package dev.sendlog.bench.mutable;

import dev.sendlog.bench.baseline.Database;
import dev.sendlog.bench.baseline.ProviderClient;
import dev.sendlog.bench.baseline.SubmitRequest;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * BASELINE, not a product: the classic mutable outbox the benchmark compares sendlog against.
 * <ul>
 * <li>Accept: one autocommitted INSERT of an {@code outbox} row per message (status PENDING).</li>
 * <li>Relay: one thread; every tick it claims one batch of PENDING rows with {@code FOR UPDATE SKIP LOCKED},
 * pushes them to a Redis list one {@code RPUSH} at a time, updates each row to QUEUED, commits, and sleeps
 * until the next tick.</li>
 * <li>Workers: {@code workers} threads, each blocking on {@code BLPOP}, calling the provider, then updating the
 * row in place to SENT (or back to PENDING for a retry, FAILED after the last attempt).</li>
 * </ul>
 * Delivery is at least once (a crash between the push and the commit pushes a row again); the provider's
 * idempotency key (the message id) makes a repeat harmless.
 */
public final class MutableOutbox implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MutableOutbox.class);
    static final int MAX_ATTEMPTS = 5;

    static final String[] SCHEMA = {"""
        CREATE TABLE IF NOT EXISTS outbox (
            id          bigserial PRIMARY KEY,
            message_id  uuid NOT NULL UNIQUE,
            recipient   text NOT NULL,
            body        text NOT NULL,
            status      text NOT NULL DEFAULT 'PENDING',
            attempts    int NOT NULL DEFAULT 0,
            provider_id text,
            last_error  text,
            created_at  timestamptz NOT NULL DEFAULT now(),
            updated_at  timestamptz NOT NULL DEFAULT now())""", "CREATE INDEX IF NOT EXISTS outbox_status_id ON outbox (status, id)"};

    /** How the relay and the workers run; see the class comment. */
    public record Settings(int workers, int batchSize, long tickMillis, String queueKey) {}

    private final DataSource database;
    private final RedisClient redis;
    private final ProviderClient provider;
    private final Settings settings;
    private final ExecutorService threads;
    private volatile boolean running = true;

    public MutableOutbox(DataSource database, RedisClient redis, ProviderClient provider, Settings settings)
            throws SQLException {
        this.database = database;
        this.redis = redis;
        this.provider = provider;
        this.settings = settings;
        Database.execute(database, SCHEMA);
        threads = Executors.newFixedThreadPool(settings.workers() + 1);
    }

    /** Starts the relay and the workers. */
    public void start() {
        threads.submit(this::relayLoop);
        for (int i = 0; i < settings.workers(); i++) {
            threads.submit(this::workerLoop);
        }
    }

    /** The accept path: one row, committed before the id is returned. */
    public String accept(SubmitRequest request) throws SQLException {
        UUID id = UUID.randomUUID();
        try (Connection connection = database.getConnection();
                PreparedStatement insert = connection.prepareStatement(
                        "INSERT INTO outbox (message_id, recipient, body) VALUES (?, ?, ?)")) {
            insert.setObject(1, id);
            insert.setString(2, request.to());
            insert.setString(3, request.body());
            insert.executeUpdate();
        }
        return id.toString();
    }

    private void relayLoop() {
        try (StatefulRedisConnection<String, String> connection = redis.connect()) {
            RedisCommands<String, String> commands = connection.sync();
            while (running) {
                try {
                    relayOneBatch(commands);
                } catch (Exception e) {
                    LOG.warn("relay batch failed", e);
                }
                sleep(settings.tickMillis());
            }
        }
    }

    /** One tick: claim, push serially, mark QUEUED row by row, commit. Returns how many rows moved. */
    int relayOneBatch(RedisCommands<String, String> commands) throws SQLException {
        try (Connection connection = database.getConnection()) {
            connection.setAutoCommit(false);
            try {
                List<String[]> rows = new ArrayList<>();
                try (PreparedStatement claim = connection.prepareStatement(
                        "SELECT id, message_id, recipient, body, attempts FROM outbox WHERE status = 'PENDING'"
                                + " ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED")) {
                    claim.setInt(1, settings.batchSize());
                    try (ResultSet rs = claim.executeQuery()) {
                        while (rs.next()) {
                            rows.add(new String[] {
                                rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5)
                            });
                        }
                    }
                }
                try (PreparedStatement queued = connection.prepareStatement(
                        "UPDATE outbox SET status = 'QUEUED', updated_at = now() WHERE id = ?")) {
                    for (String[] row : rows) {
                        commands.rpush(settings.queueKey(), String.join("\u001f", row));
                        queued.setLong(1, Long.parseLong(row[0]));
                        queued.executeUpdate();
                    }
                }
                connection.commit();
                return rows.size();
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            }
        }
    }

    private void workerLoop() {
        try (StatefulRedisConnection<String, String> connection = redis.connect()) {
            RedisCommands<String, String> commands = connection.sync();
            while (running) {
                try {
                    KeyValue<String, String> job = commands.blpop(1, settings.queueKey());
                    if (job != null && job.hasValue()) {
                        deliver(job.getValue().split("\u001f", -1));
                    }
                } catch (Exception e) {
                    if (running) {
                        LOG.warn("worker failed", e);
                    }
                }
            }
        }
    }

    private void deliver(String[] row) throws SQLException {
        long id = Long.parseLong(row[0]);
        String messageId = row[1];
        int attempts = Integer.parseInt(row[4]) + 1;
        try {
            String providerId = provider.submit(messageId, row[2], row[3], messageId);
            update(
                    id,
                    "UPDATE outbox SET status = 'SENT', provider_id = ?, attempts = ?, updated_at = now()"
                            + " WHERE id = ?",
                    providerId,
                    attempts);
        } catch (Exception e) {
            String status = attempts >= MAX_ATTEMPTS ? "FAILED" : "PENDING";
            update(
                    id,
                    "UPDATE outbox SET status = '" + status + "', last_error = ?, attempts = ?, updated_at = now()"
                            + " WHERE id = ?",
                    String.valueOf(e.getMessage()),
                    attempts);
        }
    }

    private void update(long id, String sql, String text, int attempts) throws SQLException {
        try (Connection connection = database.getConnection();
                PreparedStatement update = connection.prepareStatement(sql)) {
            update.setString(1, text);
            update.setInt(2, attempts);
            update.setLong(3, id);
            update.executeUpdate();
        }
    }

    private void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        threads.shutdown();
        if (!threads.awaitTermination(5, TimeUnit.SECONDS)) {
            threads.shutdownNow();
        }
    }
}
