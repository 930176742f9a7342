package dev.sendlog.bench.harness;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** The harness's own view of the cluster: databases per run, the WAL position, sizes, backends. */
final class Postgres {
    private final String host;
    private final int port;
    private final String user;

    Postgres(String host, int port, String user) {
        this.host = host;
        this.port = port;
        this.user = user;
    }

    String jdbcUrl(String database) {
        return "jdbc:postgresql://" + host + ":" + port + "/" + database;
    }

    String user() {
        return user;
    }

    /**
     * A connection of the harness's own. The cluster is shared with other work, so when it has no slot left
     * ("too many clients", SQLSTATE 53300) this tries again for up to 10 s instead of failing the benchmark.
     */
    Connection connect(String database) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try {
                return DriverManager.getConnection(jdbcUrl(database), user, null);
            } catch (SQLException e) {
                if (!"53300".equals(e.getSQLState()) || attempt >= 20) {
                    throw e;
                }
                try {
                    Thread.sleep(500);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    void createDatabase(String name) throws SQLException {
        admin("CREATE DATABASE " + name + " TEMPLATE template0");
    }

    void dropDatabase(String name) throws SQLException {
        admin("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }

    /** VACUUM (ANALYZE) of every table of {@code database}, as an autovacuum that had caught up would leave them. */
    void vacuumAnalyze(String database) throws SQLException {
        try (Connection connection = connect(database);
                Statement statement = connection.createStatement()) {
            statement.execute("VACUUM (ANALYZE)");
        }
    }

    /** The cluster's current WAL insert position in bytes. */
    long walPosition() throws SQLException {
        return queryLong("postgres", "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint");
    }

    long databaseSize(String name) throws SQLException {
        return queryLong("postgres", "SELECT pg_database_size('" + name + "')");
    }

    /** The largest relations of {@code database} with their indexes and TOAST, largest first: where its size is. */
    String largestRelations(String database, int limit) throws SQLException {
        StringBuilder line = new StringBuilder();
        try (Connection connection = connect(database);
                PreparedStatement query = connection.prepareStatement("""
                     SELECT c.relname, pg_total_relation_size(c.oid) AS total, pg_indexes_size(c.oid) AS indexes
                       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                      WHERE c.relkind IN ('r', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
                      ORDER BY total DESC LIMIT ?""")) {
            query.setInt(1, limit);
            try (ResultSet rs = query.executeQuery()) {
                while (rs.next()) {
                    line.append(line.isEmpty() ? "" : ", ")
                            .append(rs.getString(1))
                            .append(' ')
                            .append(rs.getLong(2) / 1024)
                            .append(" kB (indexes ")
                            .append(rs.getLong(3) / 1024)
                            .append(')');
                }
            }
        }
        return line.toString();
    }

    /** The process ids of the backends connected to {@code database} (on this machine: readable in /proc). */
    List<Long> backendPids(String database) throws SQLException {
        List<Long> pids = new ArrayList<>();
        try (Connection connection = connect("postgres");
                PreparedStatement query = connection.prepareStatement(
                        "SELECT pid FROM pg_stat_activity WHERE datname = ? AND pid <> pg_backend_pid()")) {
            query.setString(1, database);
            try (ResultSet rs = query.executeQuery()) {
                while (rs.next()) {
                    pids.add(rs.getLong(1));
                }
            }
        }
        return pids;
    }

    String text(String sql) throws SQLException {
        try (Connection connection = connect("postgres");
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    long queryLong(String database, String sql) throws SQLException {
        try (Connection connection = connect(database);
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private void admin(String sql) throws SQLException {
        try (Connection connection = connect("postgres");
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
