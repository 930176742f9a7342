package dev.sendlog.bench.peer;

import com.gruelbox.transactionoutbox.Dialect;
import com.gruelbox.transactionoutbox.Instantiator;
import com.gruelbox.transactionoutbox.Persistor;
import com.gruelbox.transactionoutbox.Submitter;
import com.gruelbox.transactionoutbox.ThreadLocalContextTransactionManager;
import com.gruelbox.transactionoutbox.TransactionManager;
import com.gruelbox.transactionoutbox.TransactionOutbox;
import dev.sendlog.bench.baseline.Database;
import dev.sendlog.bench.baseline.ProviderClient;
import dev.sendlog.bench.baseline.SubmitRequest;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The library peer: {@code com.gruelbox:transactionoutbox-core} set up as its README shows, with the plain JDBC
 * transaction manager ({@link TransactionManager#fromDataSource}), the PostgreSQL persistor, and an executor of
 * {@code workers} threads as its submitter. Accept: in one transaction, INSERT the message row and schedule
 * {@link ProviderCall#send}; the library writes its outbox entry in that transaction and hands the entry to the
 * executor after the commit. A flush every second picks up entries whose attempt failed (the library's retry).
 */
public final class TransactionOutboxPeer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionOutboxPeer.class);

    static final String SCHEMA = """
            CREATE TABLE IF NOT EXISTS messages (
                id          uuid PRIMARY KEY,
                recipient   text NOT NULL,
                body        text NOT NULL,
                created_at  timestamptz NOT NULL DEFAULT now(),
                provider_id text,
                sent_at     timestamptz)""";

    private final ThreadLocalContextTransactionManager transactions;
    private final TransactionOutbox outbox;
    private final ExecutorService workers;
    private final ScheduledExecutorService flusher = Executors.newSingleThreadScheduledExecutor();

    public TransactionOutboxPeer(
            DataSource dataSource, ProviderClient provider, int workerThreads, Duration attemptFrequency)
            throws SQLException {
        Database.execute(dataSource, SCHEMA);
        transactions = TransactionManager.fromDataSource(dataSource);
        ProviderCall call = new ProviderCall(provider, transactions);
        workers = Executors.newFixedThreadPool(workerThreads);
        outbox = TransactionOutbox.builder()
                .transactionManager(transactions)
                .persistor(Persistor.forDialect(Dialect.POSTGRESQL_9))
                .instantiator(Instantiator.using(type -> call))
                .submitter(Submitter.withExecutor(workers))
                .attemptFrequency(attemptFrequency)
                .blockAfterAttempts(5)
                .build();
        flusher.scheduleWithFixedDelay(this::flush, 1, 1, TimeUnit.SECONDS);
    }

    private void flush() {
        try {
            while (outbox.flush()) {
                // flush() answers true while it found work; keep going until a pass finds none.
            }
        } catch (RuntimeException e) {
            LOG.warn("flush failed", e);
        }
    }

    /** The accept path: the message row and the library's outbox entry, one transaction. */
    public String accept(SubmitRequest request) throws Exception {
        String id = UUID.randomUUID().toString();
        transactions.inTransactionThrows(tx -> {
            try (PreparedStatement insert = tx.connection()
                    .prepareStatement("INSERT INTO messages (id, recipient, body) VALUES (?::uuid, ?, ?)")) {
                insert.setString(1, id);
                insert.setString(2, request.to());
                insert.setString(3, request.body());
                insert.executeUpdate();
            }
            outbox.schedule(ProviderCall.class).send(id, request.to(), request.body());
        });
        return id;
    }

    @Override
    public void close() throws InterruptedException {
        flusher.shutdownNow();
        workers.shutdown();
        if (!workers.awaitTermination(5, TimeUnit.SECONDS)) {
            workers.shutdownNow();
        }
    }
}
