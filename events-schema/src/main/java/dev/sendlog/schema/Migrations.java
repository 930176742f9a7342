package dev.sendlog.schema;

import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

/** Applies the Flyway migrations shipped in this module: the only way the schema changes. */
public final class Migrations {
    private Migrations() {}

    public static MigrateResult migrate(DataSource dataSource) {
        return Flyway.configure()
                .dataSource(dataSource)
                .locations("classpath:db/migration")
                .failOnMissingLocations(true)
                // Migrations are written on branches side by side (V11 and V12 at once): a database that already has
                // the higher one applies the lower one when it arrives instead of refusing to start. Each must
                // therefore stand alone, touching nothing another branch's migration creates.
                .outOfOrder(true)
                .load()
                .migrate();
    }
}
