package dev.sendlog.service.db;

import org.postgresql.ds.PGSimpleDataSource;

/** The PostgreSQL the service talks to: a JDBC URL and credentials. */
public record DatabaseTarget(String jdbcUrl, String user, String password) {
    /** A data source without a pool, for one-shot commands and start-up steps (migrations, admin). */
    public PGSimpleDataSource unpooled() {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(jdbcUrl);
        ds.setUser(user);
        ds.setPassword(password);
        return ds;
    }
}
