package dev.sendlog.tools;

import dev.sendlog.infra.Directories;
import dev.sendlog.tools.chaos.ChaosRun;
import io.dropwizard.core.cli.Command;
import io.dropwizard.core.setup.Bootstrap;
import java.io.UncheckedIOException;
import java.time.Duration;
import net.sourceforge.argparse4j.impl.Arguments;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/**
 * {@code chaos [--seconds 120] [--seed N] [--rate 30]}: the chaos run; exits non-zero on any loss or double charge. A
 * run that passed removes its files (a PostgreSQL cluster and the processes' logs, tens of megabytes a run) unless
 * {@code --keep-files}; a run that failed keeps them for reading.
 */
public final class ChaosCommand extends Command {
    public ChaosCommand() {
        super(
                "chaos",
                "Runs the pipeline as separate processes under a seeded fault schedule and checks nothing was lost");
    }

    @Override
    public void configure(Subparser subparser) {
        subparser.addArgument("--seconds").type(Integer.class).setDefault(120).help("seconds of load under faults");
        subparser
                .addArgument("--seed")
                .type(Long.class)
                .help("the fault schedule's seed (printed; random when absent)");
        subparser.addArgument("--rate").type(Integer.class).setDefault(30).help("messages per second");
        subparser
                .addArgument("--feed")
                .choices("polling", "cdc")
                .setDefault("polling")
                .help("how the pollers find work: polling the log, or change data capture from a replication slot");
        subparser
                .addArgument("--gateway")
                .choices("http", "smpp")
                .setDefault("http")
                .help(
                        "http: two HTTP gateways with routes and failover; smpp: every message through an SMPP gateway to an "
                                + "SMSC simulator that is cut off and killed among the faults");
        subparser
                .addArgument("--ha")
                .action(Arguments.storeTrue())
                .help("the database a pg_auto_failover formation (a monitor, a primary, two standbys, replication "
                        + "synchronous) whose primary is killed and its data folder deleted among the faults");
        subparser
                .addArgument("--ha-async")
                .action(Arguments.storeTrue())
                .help("with --ha: replication asynchronous, the counter-proof (it loses acknowledged messages)");
        subparser
                .addArgument("--primary-kills")
                .type(Integer.class)
                .setDefault(5)
                .help("with --ha: how many times at least the primary is lost (the load goes on until then)");
        subparser
                .addArgument("--ha-nodes")
                .type(Integer.class)
                .setDefault(3)
                .help("with --ha: PostgreSQL nodes in the formation (3: every commit on two of them even while one "
                        + "is being replaced)");
        subparser
                .addArgument("--drain-seconds")
                .type(Integer.class)
                .setDefault(300)
                .help("how long to wait for the drain");
        subparser
                .addArgument("--keep-files")
                .action(Arguments.storeTrue())
                .help("keep the run's files after a pass too (a failed run always keeps them)");
    }

    @Override
    public void run(Bootstrap<?> bootstrap, Namespace namespace) throws Exception {
        Long seed = namespace.getLong("seed");
        String jar = Jars.product();
        ChaosRun chaos = new ChaosRun(
                jar,
                Duration.ofSeconds(namespace.getInt("seconds")),
                seed == null ? System.nanoTime() : seed,
                namespace.getInt("rate"),
                Duration.ofSeconds(namespace.getInt("drain_seconds")),
                namespace.getString("feed"),
                namespace.getString("gateway"),
                namespace.getBoolean("ha") || namespace.getBoolean("ha_async")
                        ? new ChaosRun.Ha(
                                namespace.getBoolean("ha_async"),
                                namespace.getInt("primary_kills"),
                                namespace.getInt("ha_nodes"))
                        : null,
                System.out);
        boolean ok = chaos.run();
        if (ok && !namespace.getBoolean("keep_files")) {
            try {
                Directories.deleteRecursively(chaos.directory());
                System.out.println("chaos: passed; its files removed (--keep-files keeps them)");
            } catch (UncheckedIOException e) {
                // The verdict stands; only the clean-up did not finish.
                System.out.println("chaos: passed, but its files could not all be removed: " + e.getMessage());
            }
        }
        System.exit(ok ? 0 : 1);
    }
}
