package dev.sendlog.service.support;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** Plain SQL for tests that check what is really in the database. */
public final class Sql {
    private Sql() {}

    public static long count(DataSource ds, String sql) {
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    public static void exec(DataSource ds, String sql) {
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /**
     * A connection in an open transaction that holds {@code table} in EXCLUSIVE mode: every insert into it waits until
     * the connection is closed (its transaction then rolls back).
     */
    public static java.sql.Connection lockExclusively(DataSource ds, String table) throws java.sql.SQLException {
        java.sql.Connection lock = ds.getConnection();
        lock.setAutoCommit(false);
        try (java.sql.Statement st = lock.createStatement()) {
            st.execute("LOCK TABLE " + table + " IN EXCLUSIVE MODE");
        }
        return lock;
    }
}
