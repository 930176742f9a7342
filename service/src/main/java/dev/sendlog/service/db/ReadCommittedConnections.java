package dev.sendlog.service.db;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.jooq.ConnectionProvider;
import org.jooq.exception.DataAccessException;
import org.jooq.tools.jdbc.DefaultConnection;

/**
 * jOOQ's connections from a pool whose connections are all READ COMMITTED (the pool sets it on each one). jOOQ asks
 * a connection for its isolation level at the start of every transaction, and the PostgreSQL driver answers that
 * with a round trip ({@code SHOW TRANSACTION ISOLATION LEVEL}): one more statement per transaction, about 2% of the
 * service's CPU in a profile. The connections handed out here answer it themselves: READ COMMITTED, or the level
 * last set through them. The service never changes the isolation any other way (no {@code SET TRANSACTION} or
 * {@code SET SESSION CHARACTERISTICS} in its SQL).
 */
final class ReadCommittedConnections implements ConnectionProvider {
    private final DataSource pool;

    ReadCommittedConnections(DataSource pool) {
        this.pool = pool;
    }

    @Override
    public Connection acquire() {
        try {
            return new KnownIsolation(pool.getConnection());
        } catch (SQLException e) {
            throw new DataAccessException("cannot get a connection from the pool", e);
        }
    }

    @Override
    public void release(Connection connection) {
        try {
            connection.close();
        } catch (SQLException e) {
            throw new DataAccessException("cannot return a connection to the pool", e);
        }
    }

    /** A pooled connection that knows its isolation level instead of asking the server. */
    static final class KnownIsolation extends DefaultConnection {
        private int isolation = Connection.TRANSACTION_READ_COMMITTED;

        KnownIsolation(Connection delegate) {
            super(delegate);
        }

        @Override
        public int getTransactionIsolation() throws SQLException {
            if (isClosed()) {
                throw new SQLException("the connection is closed");
            }
            return isolation;
        }

        @Override
        public void setTransactionIsolation(int level) throws SQLException {
            super.setTransactionIsolation(level);
            isolation = level;
        }
    }
}
