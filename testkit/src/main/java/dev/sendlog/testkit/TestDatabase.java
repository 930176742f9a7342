package dev.sendlog.testkit;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.sendlog.infra.PostgresEndpoint;
import dev.sendlog.schema.Migrations;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A database of its own on the {@link TestPostgres} cluster, named {@code sendlog_t_<random hex>} so
 * that test JVMs sharing a cluster never collide, and dropped on {@link #close()}.
 */
public final class TestDatabase implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TestDatabase.class);

    public static final String NAME_PREFIX = "sendlog_t_";

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int POOL_SIZE = 4;
    private static final int CREATE_ATTEMPTS = 3;
    private static final String DUPLICATE_DATABASE = "42P04";

    private final PostgresEndpoint cluster;
    private final String name;
    private HikariDataSource pool;
    private boolean closed;

    private TestDatabase(PostgresEndpoint cluster, String name) {
        this.cluster = cluster;
        this.name = name;
    }

    /** A new database with every Flyway migration applied. */
    public static TestDatabase create() {
        return create(TestPostgres.endpoint());
    }

    /** A new database with every Flyway migration applied, on the given cluster (a private one, say). */
    public static TestDatabase create(PostgresEndpoint cluster) {
        TestDatabase database = createEmpty(cluster);
        try {
            long startNanos = System.nanoTime();
            Migrations.migrate(database.unpooledDataSource());
            LOG.debug("Migrated {} in {} ms", database.name, (System.nanoTime() - startNanos) / 1_000_000);
            return database;
        } catch (RuntimeException e) {
            database.close();
            throw e;
        }
    }

    /** A new database with no schema at all. */
    public static TestDatabase createEmpty() {
        return createEmpty(TestPostgres.endpoint());
    }

    private static TestDatabase createEmpty(PostgresEndpoint cluster) {
        for (int attempt = 1; ; attempt++) {
            String name = NAME_PREFIX + HexFormat.of().toHexDigits(RANDOM.nextLong());
            try (Connection admin = cluster.connect(cluster.adminDatabase());
                    Statement statement = admin.createStatement()) {
                // template0: a clean database whatever someone installed into template1.
                statement.execute("CREATE DATABASE " + name + " TEMPLATE template0");
                LOG.info("Created test database {} on {}:{}", name, cluster.host(), cluster.port());
                return new TestDatabase(cluster, name);
            } catch (SQLException e) {
                if (!DUPLICATE_DATABASE.equals(e.getSQLState()) || attempt == CREATE_ATTEMPTS) {
                    throw new IllegalStateException("could not create test database " + name + " on " + cluster, e);
                }
                LOG.warn("Test database name {} is taken; drawing another", name);
            }
        }
    }

    public String name() {
        return name;
    }

    public String jdbcUrl() {
        return cluster.jdbcUrl(name);
    }

    /** The cluster the database lives on. */
    public PostgresEndpoint endpoint() {
        return cluster;
    }

    /** A HikariCP pool of at most four connections, created on first use and closed with the database. */
    public synchronized DataSource dataSource() {
        requireOpen();
        if (pool == null) {
            HikariConfig config = new HikariConfig();
            config.setPoolName(name);
            config.setJdbcUrl(jdbcUrl());
            config.setUsername(cluster.user());
            config.setPassword(cluster.password());
            config.setMaximumPoolSize(POOL_SIZE);
            config.setMinimumIdle(0);
            pool = new HikariDataSource(config);
        }
        return pool;
    }

    /** A plain connection outside the pool; the caller closes it. */
    public Connection connect() throws SQLException {
        requireOpen();
        return cluster.connect(name);
    }

    /** Closes the pool and drops the database, ending any session still connected to it. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (pool != null) {
            pool.close();
        }
        try (Connection admin = cluster.connect(cluster.adminDatabase());
                Statement statement = admin.createStatement()) {
            // A logical replication slot keeps its database from being dropped; the test's slots go with it (a
            // consumer still attached is ended first, waiting up to 10 s for it to exit and let go of the slot).
            statement.execute(
                    "SELECT pg_terminate_backend(active_pid, 10000) FROM pg_replication_slots WHERE database = '" + name
                            + "' AND active");
            statement.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE database = '"
                    + name + "'");
            statement.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            LOG.info("Dropped test database {}", name);
        } catch (SQLException e) {
            throw new IllegalStateException("could not drop test database " + name + " on " + cluster, e);
        }
    }

    private DataSource unpooledDataSource() {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(jdbcUrl());
        dataSource.setUser(cluster.user());
        dataSource.setPassword(cluster.password());
        return dataSource;
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("test database " + name + " is already dropped");
        }
    }

    @Override
    public String toString() {
        return "TestDatabase[" + name + " on " + cluster.host() + ":" + cluster.port() + "]";
    }
}
