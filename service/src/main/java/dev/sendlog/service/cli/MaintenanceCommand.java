package dev.sendlog.service.cli;

import dev.sendlog.compactor.Compactor;
import dev.sendlog.events.EventCodec;
import dev.sendlog.service.config.SendlogConfiguration;
import dev.sendlog.service.db.DatabaseTarget;
import dev.sendlog.service.db.LocalInfrastructure;
import dev.sendlog.service.log.EventStore;
import dev.sendlog.service.log.MessageReader;
import dev.sendlog.service.projection.ProjectionRebuild;
import dev.sendlog.service.tasks.CompactionJob;
import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.setup.Bootstrap;
import java.time.Duration;
import java.time.InstantSource;
import net.sourceforge.argparse4j.inf.Namespace;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.postgresql.ds.PGSimpleDataSource;

/** One-shot maintenance commands: {@code compact config.yml} and {@code rebuild-projection config.yml}. */
public final class MaintenanceCommand extends ConfiguredCommand<SendlogConfiguration> {
    private final boolean rebuild;

    private MaintenanceCommand(String name, String description, boolean rebuild) {
        super(name, description);
        this.rebuild = rebuild;
    }

    public static MaintenanceCommand compact() {
        return new MaintenanceCommand(
                "compact", "Folds every day older than compaction.retentionDays into snapshots, once", false);
    }

    public static MaintenanceCommand rebuildProjection() {
        return new MaintenanceCommand(
                "rebuild-projection",
                "Folds every history again and corrects the final index (what search by status reads) from it",
                true);
    }

    @Override
    protected void run(Bootstrap<SendlogConfiguration> bootstrap, Namespace namespace, SendlogConfiguration config)
            throws Exception {
        try (LocalInfrastructure local = new LocalInfrastructure(config)) {
            DatabaseTarget target = local.database();
            PGSimpleDataSource ds = target.unpooled();
            EventCodec codec = new EventCodec();
            if (rebuild) {
                var dsl = DSL.using(ds, SQLDialect.POSTGRES);
                long n = ProjectionRebuild.rebuild(dsl, new MessageReader(dsl, EventStore.of(ds)));
                System.out.println("final index rebuilt from the log: " + n + " rows corrected");
            } else {
                Compactor compactor = new Compactor(
                        ds, codec, Duration.ofMillis(config.compaction.lockTimeout.toMilliseconds()), s -> {});
                var days = new CompactionJob(
                                compactor,
                                InstantSource.system(),
                                config.compaction.retentionDays,
                                bootstrap.getMetricRegistry())
                        .compact();
                System.out.println("compacted days: " + days);
            }
        }
    }
}
