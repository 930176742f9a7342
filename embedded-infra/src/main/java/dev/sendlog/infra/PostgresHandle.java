package dev.sendlog.infra;

import java.util.Optional;

/**
 * The PostgreSQL that {@link LocalServices} chose. Closing it stops the server only if it was started
 * here; a server that was already running is left alone.
 */
public final class PostgresHandle implements AutoCloseable {
    private final PostgresEndpoint endpoint;
    private final String database;
    private final Optional<LocalPostgres> startedHere;
    private final String reason;

    PostgresHandle(PostgresEndpoint endpoint, String database, Optional<LocalPostgres> startedHere, String reason) {
        this.endpoint = endpoint;
        this.database = database;
        this.startedHere = startedHere;
        this.reason = reason;
    }

    /** The cluster, logged in as its superuser. */
    public PostgresEndpoint endpoint() {
        return endpoint;
    }

    /** The application database on that cluster (it exists). */
    public String database() {
        return database;
    }

    public String jdbcUrl() {
        return endpoint.jdbcUrl(database);
    }

    public boolean startedHere() {
        return startedHere.isPresent();
    }

    /** Why this server was chosen, for logs and health output. */
    public String reason() {
        return reason;
    }

    @Override
    public void close() {
        startedHere.ifPresent(LocalPostgres::close);
    }
}
