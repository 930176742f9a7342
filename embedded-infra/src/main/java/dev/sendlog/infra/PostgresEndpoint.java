package dev.sendlog.infra;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Properties;

/**
 * Where a PostgreSQL cluster listens and how to log in to it.
 *
 * @param adminDatabase a database that always exists on the cluster (used to create and drop others)
 * @param password empty when the server trusts the connection
 */
public record PostgresEndpoint(String host, int port, String user, String password, String adminDatabase) {
    private static final int CONNECT_TIMEOUT_SECONDS = 10;

    public PostgresEndpoint {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(password, "password");
        Objects.requireNonNull(adminDatabase, "adminDatabase");
        if (port <= 0 || port > 65_535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
    }

    public String jdbcUrl(String database) {
        return "jdbc:postgresql://" + host + ":" + port + "/" + database;
    }

    public String adminJdbcUrl() {
        return jdbcUrl(adminDatabase);
    }

    /** A plain (unpooled) connection to {@code database}; the caller closes it. */
    public Connection connect(String database) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", user);
        if (!password.isEmpty()) {
            properties.setProperty("password", password);
        }
        properties.setProperty("connectTimeout", Integer.toString(CONNECT_TIMEOUT_SECONDS));
        return DriverManager.getConnection(jdbcUrl(database), properties);
    }

    /** Never shows the password. */
    @Override
    public String toString() {
        return "PostgresEndpoint[" + user + "@" + host + ":" + port + "/" + adminDatabase + "]";
    }
}
