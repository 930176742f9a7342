package dev.sendlog.schema;

import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

/** Applies the Flyway migrations shipped in this module: the only way the schema changes. */
public final class Migrations {
    private Migrations() {
    }

    public static MigrateResult migrate(DataSource dataSource) {
        return Flyway.configure()
                .dataSource(dataSource)
                .locations("classpath:db/migration")
                .failOnMissingLocations(true)
                .load()
                .migrate();
    }
}
