package dev.sendlog.infra;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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

    private PostgresAdmin() {}

    /** Throws unless the cluster accepts a login and answers a query. */
    /**
     * Throws unless the server on the endpoint answers and serves {@code pgData}: while ours, unable to bind
     * a port another server holds, is still on its way out, that other server would answer too.
     */
    static void checkAnswers(PostgresEndpoint endpoint, Path pgData) throws SQLException {
        try (Connection connection = endpoint.connect(endpoint.adminDatabase());
                Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SHOW data_directory")) {
            if (!result.next()) {
                throw new SQLException("SHOW data_directory returned no row");
            }
            String served = result.getString(1);
            if (!sameDirectory(Path.of(served), pgData)) {
                throw new SQLException(
                        "port " + endpoint.port() + " is answered by a server of " + served + ", not of " + pgData);
            }
        }
    }

    private static boolean sameDirectory(Path a, Path b) {
        if (a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize())) {
            return true;
        }
        try {
            return Files.isSameFile(a, b);
        } catch (IOException e) {
            return false;
        }
    }

    /** Creates {@code database} unless it exists; true when it was created now. */
    static boolean ensureDatabase(PostgresEndpoint endpoint, String database) throws SQLException {
        if (!PLAIN_NAME.matcher(database).matches()) {
            throw new IllegalArgumentException("not a plain lower-case database name: " + database);
        }
        try (Connection connection = endpoint.connect(endpoint.adminDatabase())) {
            try (PreparedStatement exists =
                    connection.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
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
