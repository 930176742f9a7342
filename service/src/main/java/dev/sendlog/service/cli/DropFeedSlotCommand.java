package dev.sendlog.service.cli;

import dev.sendlog.service.config.SendlogConfiguration;
import dev.sendlog.service.db.DatabaseTarget;
import dev.sendlog.service.db.LocalInfrastructure;
import dev.sendlog.service.publish.FeedSlot;
import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.setup.Bootstrap;
import net.sourceforge.argparse4j.impl.Arguments;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * {@code drop-feed-slot config.yml}: drops the change-data-capture slot named in {@code pipeline.cdc.slot}, so an
 * abandoned slot stops holding WAL back. Refuses while a poller reads it unless {@code --force}. The next poller that
 * runs with {@code pipeline.feed: cdc} creates the slot again and first publishes the work still owed.
 */
public final class DropFeedSlotCommand extends ConfiguredCommand<SendlogConfiguration> {
    public DropFeedSlotCommand() {
        super(
                "drop-feed-slot",
                "Drops the change-data-capture replication slot (pipeline.cdc.slot) so it no longer retains WAL");
    }

    @Override
    public void configure(Subparser subparser) {
        super.configure(subparser);
        subparser
                .addArgument("--force")
                .action(Arguments.storeTrue())
                .help("end the replication connection of a poller still reading the slot, then drop it");
    }

    @Override
    protected void run(Bootstrap<SendlogConfiguration> bootstrap, Namespace namespace, SendlogConfiguration config)
            throws Exception {
        try (LocalInfrastructure local = new LocalInfrastructure(config)) {
            DatabaseTarget target = local.database();
            PGSimpleDataSource ds = target.unpooled();
            FeedSlot slot = new FeedSlot(
                    DSL.using(ds, SQLDialect.POSTGRES), config.pipeline.cdc.slot, config.pipeline.cdc.publication);
            boolean dropped = slot.drop(Boolean.TRUE.equals(namespace.getBoolean("force")));
            System.out.println(
                    dropped ? "dropped replication slot " + slot.name() : "no replication slot named " + slot.name());
        }
    }
}
