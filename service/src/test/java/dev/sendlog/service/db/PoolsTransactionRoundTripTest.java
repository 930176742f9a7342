package dev.sendlog.service.db;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import dev.sendlog.service.config.DatabaseSettings;
import dev.sendlog.testkit.TestDatabase;
import java.sql.Connection;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * jOOQ asks for the isolation level at the start of every transaction; the pools' connections answer it without a
 * round trip, and truthfully. What goes over the wire is read from the PostgreSQL driver's own protocol log, for the
 * test's own thread only: the logger is the whole JVM's, and each pool's connection adder asks the same question once
 * when it opens a connection, at a moment of its own (on a busy machine, inside the counted part).
 */
class PoolsTransactionRoundTripTest {
    private static final String SHOW_ISOLATION = "SHOW TRANSACTION ISOLATION LEVEL";
    private static final Field<String> ISOLATION = DSL.field("current_setting('transaction_isolation')", String.class);
    private final Logger wire = Logger.getLogger("org.postgresql.core.v3.QueryExecutorImpl");
    private final List<String> sent = new CopyOnWriteArrayList<>();
    private volatile Thread testThread;
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            if (Thread.currentThread() == testThread) {
                sent.add(record.getMessage() + " " + Arrays.toString(record.getParameters()));
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };
    private Level levelBefore;
    private TestDatabase db;
    private Pools pools;

    @BeforeEach
    void setUp() {
        testThread = Thread.currentThread();
        db = TestDatabase.create();
        DatabaseSettings settings = new DatabaseSettings();
        settings.pools.api = 1;
        settings.pools.pipeline = 1;
        settings.pools.callbacks = 1;
        settings.pools.maintenance = 1;
        pools = new Pools(db.jdbcUrl(), settings, new MetricRegistry(), "test");
        levelBefore = wire.getLevel();
        wire.setLevel(Level.FINEST);
        wire.addHandler(capture);
    }

    @AfterEach
    void tearDown() {
        wire.removeHandler(capture);
        wire.setLevel(levelBefore);
        pools.close();
        db.close();
    }

    private long isolationQueries() {
        return sent.stream().filter(line -> line.contains(SHOW_ISOLATION)).count();
    }

    @Test
    void aTransactionThroughThePoolsAsksTheServerNothingButItsOwnStatements() {
        DSLContext dsl = pools.dsl(PoolRole.API);
        dsl.fetchValue("SELECT 1"); // a first connection, outside what is counted
        sent.clear();
        for (int i = 0; i < 5; i++) {
            Integer one = dsl.transactionResult(cfg -> cfg.dsl().fetchValue(DSL.field("1", Integer.class)));
            assertThat(one).isEqualTo(1);
        }
        assertThat(sent).as("the driver's protocol log").isNotEmpty();
        assertThat(isolationQueries()).isZero();

        // The same transactions over the same pool without the pools' connection provider do ask, once each: the
        // count above would have seen them.
        DSLContext plain = DSL.using(pools.dataSource(PoolRole.API), SQLDialect.POSTGRES);
        sent.clear();
        for (int i = 0; i < 5; i++) {
            plain.transaction(cfg -> cfg.dsl().fetchValue("SELECT 1"));
        }
        assertThat(isolationQueries()).isEqualTo(5);
    }

    @Test
    void theAnswerIsTheServersOwnAndFollowsALevelSetThroughTheConnection() {
        DSLContext dsl = pools.dsl(PoolRole.PIPELINE);
        dsl.transaction(cfg -> {
            assertThat(cfg.dsl().fetchValue(ISOLATION)).isEqualTo("read committed");
            cfg.dsl()
                    .connection(c ->
                            assertThat(c.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_READ_COMMITTED));
        });
        dsl.connection(c -> {
            c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            assertThat(c.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_SERIALIZABLE);
            c.setAutoCommit(false);
            try (var statement = c.createStatement();
                    var rs = statement.executeQuery("SELECT current_setting('transaction_isolation')")) {
                rs.next();
                assertThat(rs.getString(1)).isEqualTo("serializable");
            }
            c.rollback();
            c.setAutoCommit(true);
        });
        // The pool put the connection back to READ COMMITTED when it came back.
        dsl.transaction(cfg -> assertThat(cfg.dsl().fetchValue(ISOLATION)).isEqualTo("read committed"));
    }
}
