package dev.sendlog.tools;

import dev.sendlog.tools.loadtest.FeedBench;
import dev.sendlog.tools.loadtest.LoadTest;
import dev.sendlog.tools.loadtest.PriorityBench;
import dev.sendlog.tools.loadtest.SearchBench;
import dev.sendlog.tools.loadtest.WriteCost;
import io.dropwizard.core.cli.Command;
import io.dropwizard.core.setup.Bootstrap;
import net.sourceforge.argparse4j.impl.Arguments;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/**
 * {@code loadtest}: drives running sendlog services and prints throughput and latency percentiles.
 * Several targets are measured side by side, alternating, so their ratio is fair on a noisy machine.
 */
public final class LoadTestCommand extends Command {
    public LoadTestCommand() {
        super("loadtest", "Measures running sendlog services: accepted messages per second and latency percentiles");
    }

    @Override
    public void configure(Subparser subparser) {
        subparser
                .addArgument("--search")
                .action(Arguments.storeTrue())
                .help(
                        "the search benchmark: fills --database-url with --messages messages and times pages of searches");
        subparser
                .addArgument("--write-cost")
                .action(Arguments.storeTrue())
                .help(
                        "the write-cost benchmark: one message's life through the event log and through a mutable outbox row");
        subparser
                .addArgument("--feeds")
                .action(Arguments.storeTrue())
                .help(
                        "the feed benchmark: polling against cdc with --pollers poller processes, on a PostgreSQL, Redis and "
                                + "simulator of its own; a burst of --messages, then --paced-seconds at --paced-rate msg/s");
        subparser
                .addArgument("--priority")
                .action(Arguments.storeTrue())
                .help("the priority benchmark: high messages at --high-rate for --high-seconds, alone and then behind "
                        + "--backlog queued normal messages, on a PostgreSQL, Redis and simulator of its own");
        subparser
                .addArgument("--webhooks")
                .action(Arguments.storeTrue())
                .help(
                        "the webhook isolation benchmark: two tenants at --webhook-rate msg/s each for --seconds, the other "
                                + "tenant's endpoint answering at once and then never; prints the healthy tenant's delivery p50/p99");
        subparser
                .addArgument("--gateway-rate")
                .action(Arguments.storeTrue())
                .help(
                        "the gateway rate benchmark: two send-worker processes against a provider taking --provider-rate "
                                + "submits a second (429 above), --seconds measured per case; prints accepted/s and the refused share");
        subparser
                .addArgument("--smpp")
                .action(Arguments.storeTrue())
                .help(
                        "the SMPP throughput benchmark: one SMPP gateway against the SMSC simulator at --smsc-latency ms, "
                                + "windows 1, 4 and 16 (one bind) and 2 binds of 16, --seconds measured per case");
        subparser
                .addArgument("--smpp-cases")
                .setDefault("1x1,1x4,1x16,2x16")
                .help("for --smpp: the cases as sessions x window, comma-separated");
        subparser
                .addArgument("--smpp-receipt-store-ms")
                .type(Integer.class)
                .setDefault(-1)
                .help("for --smpp: receipts for every submit, each taking this long to store (-1: no receipts)");
        subparser
                .addArgument("--smsc-latency")
                .type(Integer.class)
                .setDefault(20)
                .help("the SMSC simulator's latency per submit_sm, for --smpp");
        subparser
                .addArgument("--fair-share")
                .action(Arguments.storeTrue())
                .help(
                        "the fair-share benchmark: tenant B at --tenant-rate msg/s for --seconds, with tenant A idle and then "
                                + "behind --flood messages of A, the gateway taking --contracted-rate submits a second");
        subparser
                .addArgument("--flood")
                .type(Integer.class)
                .setDefault(200_000)
                .help("fair-share mode: tenant A's messages");
        subparser
                .addArgument("--tenant-rate")
                .type(Integer.class)
                .setDefault(20)
                .help("fair-share mode: tenant B's msg/s");
        subparser
                .addArgument("--contracted-rate")
                .type(Integer.class)
                .setDefault(200)
                .help("fair-share mode: the gateway's maxPerSecond");
        subparser
                .addArgument("--weight-b")
                .type(Integer.class)
                .setDefault(1)
                .help("fair-share mode: tenant B's weight (a lane of its own); 0: no weight, B shares the normal lane");
        subparser
                .addArgument("--provider-rate")
                .type(Integer.class)
                .setDefault(100)
                .help("gateway-rate mode: the provider's own rate, submits per second");
        subparser
                .addArgument("--webhook-rate")
                .type(Integer.class)
                .setDefault(50)
                .help("webhooks mode: msg/s per tenant");
        subparser
                .addArgument("--backlog")
                .type(Integer.class)
                .setDefault(100_000)
                .help("priority mode: normal messages queued");
        subparser
                .addArgument("--high-rate")
                .type(Integer.class)
                .setDefault(10)
                .help("priority mode: high messages per second");
        subparser
                .addArgument("--normal-concurrency")
                .type(Integer.class)
                .setDefault(64)
                .help(
                        "priority mode: the normal lane's provider calls in flight (64, the default, drains the backlog as fast "
                                + "as the machine can; a lower one stands for a gateway's own throughput limit)");
        subparser
                .addArgument("--high-seconds")
                .type(Integer.class)
                .setDefault(30)
                .help("priority mode: seconds of high messages");
        subparser
                .addArgument("--pollers")
                .setDefault("1,2,3")
                .help("feeds mode: comma-separated poller process counts");
        subparser
                .addArgument("--paced-rate")
                .type(Integer.class)
                .setDefault(200)
                .help("feeds mode: msg/s of the paced part");
        subparser
                .addArgument("--paced-seconds")
                .type(Integer.class)
                .setDefault(20)
                .help("feeds mode: length of the paced part");
        subparser
                .addArgument("--database-url")
                .setDefault("jdbc:postgresql://127.0.0.1:5432/sendlog_bench_wal")
                .help("write-cost mode: the database to use (created by the caller)");
        subparser
                .addArgument("--target")
                .action(Arguments.append())
                .help("label=baseUrl of a running service, e.g. group-commit=http://127.0.0.1:8080 (repeatable)");
        subparser.addArgument("--key").setDefault("demo-client-key").help("client API key");
        subparser.addArgument("--concurrency").setDefault("1,16,64").help("comma-separated client counts");
        subparser
                .addArgument("--batch")
                .type(Integer.class)
                .setDefault(0)
                .help("messages per request on /v1/messages/batch; 0 sends single messages to /v1/messages");
        subparser.addArgument("--seconds").type(Integer.class).setDefault(15).help("measured seconds per cell");
        subparser
                .addArgument("--e2e")
                .action(Arguments.storeTrue())
                .help(
                        "end to end: submit --messages through the batch endpoint, wait until all are SENT, print the stages");
        subparser
                .addArgument("--messages")
                .type(Integer.class)
                .setDefault(20_000)
                .help("messages per end-to-end run");
        subparser
                .addArgument("--warmup-messages")
                .type(Integer.class)
                .help(
                        "end-to-end mode: unmeasured messages sent (and awaited) first, so the JIT has compiled the hot paths;"
                                + " a tenth of --messages (at least 1,000) unless given");
        subparser.addArgument("--admin").help("admin base URL of the target (end-to-end mode reads its metrics)");
        subparser
                .addArgument("--callback-admin")
                .help("admin base URL of a separate process that takes the callbacks "
                        + "(intake and callback workers), when they do not run in the target; end-to-end mode reads the callback "
                        + "figures from it");
        subparser
                .addArgument("--jit-warmup-seconds")
                .type(Integer.class)
                .setDefault(20)
                .help("unmeasured seconds per target at the highest concurrency before the first cell");
        subparser
                .addArgument("--warmup-seconds")
                .type(Integer.class)
                .setDefault(3)
                .help("unmeasured seconds before each cell");
    }

    @Override
    public void run(Bootstrap<?> bootstrap, Namespace namespace) throws Exception {
        if (namespace.getBoolean("search")) {
            new SearchBench(namespace.getString("database_url"), namespace.getInt("messages")).run(System.out);
        } else if (namespace.getBoolean("write_cost")) {
            new WriteCost(namespace.getString("database_url"), "postgres", namespace.getInt("messages"))
                    .run(System.out);
        } else if (namespace.getBoolean("priority")) {
            new PriorityBench(
                            jar(),
                            java.nio.file.Path.of("target", "bench", "priority-" + System.currentTimeMillis()),
                            namespace.getInt("backlog"),
                            namespace.getInt("high_rate"),
                            namespace.getInt("high_seconds"),
                            namespace.getInt("normal_concurrency"))
                    .run(System.out);
        } else if (namespace.getBoolean("webhooks")) {
            new dev.sendlog.tools.loadtest.WebhookIsolationBench(
                            jar(),
                            java.nio.file.Path.of("target", "bench", "webhooks-" + System.currentTimeMillis()),
                            namespace.getInt("webhook_rate"),
                            namespace.getInt("seconds"))
                    .run(System.out);
        } else if (namespace.getBoolean("smpp")) {
            new dev.sendlog.tools.loadtest.SmppBench(
                            namespace.getInt("smsc_latency"),
                            namespace.getInt("seconds"),
                            java.util.Arrays.stream(
                                            namespace.getString("smpp_cases").split(","))
                                    .map(c -> java.util.Arrays.stream(c.trim().split("x"))
                                            .mapToInt(Integer::parseInt)
                                            .toArray())
                                    .toList(),
                            namespace.getInt("smpp_receipt_store_ms"))
                    .run(System.out);
        } else if (namespace.getBoolean("gateway_rate")) {
            new dev.sendlog.tools.loadtest.GatewayRateBench(
                            jar(),
                            java.nio.file.Path.of("target", "bench", "rate-" + System.currentTimeMillis()),
                            namespace.getInt("provider_rate"),
                            namespace.getInt("seconds"))
                    .run(System.out);
        } else if (namespace.getBoolean("fair_share")) {
            new dev.sendlog.tools.loadtest.FairShareBench(
                            jar(),
                            java.nio.file.Path.of("target", "bench", "fair-" + System.currentTimeMillis()),
                            namespace.getInt("flood"),
                            namespace.getInt("tenant_rate"),
                            namespace.getInt("seconds"),
                            namespace.getInt("contracted_rate"),
                            namespace.getInt("weight_b"))
                    .run(System.out);
        } else if (namespace.getBoolean("feeds")) {
            String jar = jar();
            java.util.List<Integer> pollers = java.util.Arrays.stream(
                            namespace.getString("pollers").split(","))
                    .map(String::trim)
                    .map(Integer::parseInt)
                    .toList();
            new FeedBench(
                            jar,
                            java.nio.file.Path.of("target", "bench", "feeds-" + System.currentTimeMillis()),
                            namespace.getInt("messages"),
                            namespace.getInt("paced_rate"),
                            namespace.getInt("paced_seconds"),
                            pollers,
                            java.util.List.of("polling", "cdc"))
                    .run(System.out);
        } else if (namespace.getBoolean("e2e")) {
            LoadTest.endToEnd(namespace, System.out);
        } else {
            LoadTest.fromArguments(namespace).run(System.out);
        }
    }

    /** The product jar: the benchmarks start its servers as processes. */
    private static String jar() {
        return Jars.product();
    }
}
