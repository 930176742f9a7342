package dev.sendlog.service.db;

/** The PostgreSQL the service talks to: a JDBC URL and credentials. */
public record DatabaseTarget(String jdbcUrl, String user, String password) {
}
