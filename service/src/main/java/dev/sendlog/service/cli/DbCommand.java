package dev.sendlog.service.cli;

import dev.sendlog.schema.Migrations;
import dev.sendlog.service.config.SendlogConfiguration;
import dev.sendlog.service.db.DatabaseTarget;
import dev.sendlog.service.db.LocalInfrastructure;
import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.setup.Bootstrap;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import org.postgresql.ds.PGSimpleDataSource;

/** {@code db migrate [config.yml]}: applies the Flyway migrations and exits. */
public final class DbCommand extends ConfiguredCommand<SendlogConfiguration> {
    public DbCommand() {
        super(
                "db",
                "Database tasks: db create|migrate|drop <config.yml> (create/drop: the database named in database.url)");
    }

    @Override
    public void configure(Subparser subparser) {
        subparser.addArgument("action").choices("create", "migrate", "drop").help("what to do");
        super.configure(subparser);
    }

    @Override
    protected void run(Bootstrap<SendlogConfiguration> bootstrap, Namespace namespace, SendlogConfiguration config)
            throws Exception {
        String action = namespace.getString("action");
        if (!action.equals("migrate")) {
            DatabaseAdmin.run(
                    action, new DatabaseTarget(config.database.url, config.database.user, config.database.password));
            return;
        }
        try (LocalInfrastructure local = new LocalInfrastructure(config)) {
            DatabaseTarget target = local.database();
            PGSimpleDataSource ds = target.unpooled();
            var result = Migrations.migrate(ds);
            System.out.println("migrated " + target.jdbcUrl() + ": " + result.migrationsExecuted
                    + " migrations applied, schema version " + result.targetSchemaVersion);
        }
    }
}
