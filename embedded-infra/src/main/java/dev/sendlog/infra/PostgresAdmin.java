package dev.sendlog.infra;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Small administrative statements on a cluster, run through its admin database. */
final class PostgresAdmin {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresAdmin.class);
    private static final Pattern PLAIN_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
    private static final String DUPLICATE_DATABASE = "42P04";

    private PostgresAdmin() {
    }

    /** Throws unless the cluster accepts a login and answers a query. */
    static void checkAnswers(PostgresEndpoint endpoint) throws SQLException {
        try (Connection connection = endpoint.connect(endpoint.adminDatabase());
             Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery("SELECT 1")) {
            if (!result.next()) {
                throw new SQLException("SELECT 1 returned no row");
            }
        }
    }

    /** Creates {@code database} unless it exists; true when it was created now. */
    static boolean ensureDatabase(PostgresEndpoint endpoint, String database) throws SQLException {
        if (!PLAIN_NAME.matcher(database).matches()) {
            throw new IllegalArgumentException("not a plain lower-case database name: " + database);
        }
        try (Connection connection = endpoint.connect(endpoint.adminDatabase())) {
            try (PreparedStatement exists = connection.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
                exists.setString(1, database);
                try (ResultSet result = exists.executeQuery()) {
                    if (result.next()) {
                        return false;
                    }
                }
            }
            try (Statement create = connection.createStatement()) {
                create.execute("CREATE DATABASE " + database);
                return true;
            } catch (SQLException e) {
                if (DUPLICATE_DATABASE.equals(e.getSQLState())) {
                    LOG.debug("Database {} was created concurrently by someone else", database, e);
                    return false;
                }
                throw e;
            }
        }
    }
}
