package dev.sendlog.tools.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sendlog.infra.Directories;
import dev.sendlog.infra.FreePorts;
import dev.sendlog.infra.LocalPostgres;
import dev.sendlog.infra.RedisOptions;
import dev.sendlog.infra.RedisProcess;
import dev.sendlog.tools.Jars;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The chaos run: the pipeline as separate operating-system processes (two APIs, two pollers, two send workers, a
 * callback worker, maintenance, the simulator), on a PostgreSQL and a Redis of its own, under a steady load, while a
 * seeded fault schedule kills processes, restarts Redis empty, pauses it, restarts PostgreSQL, and delays or cuts the
 * network to the provider. Then the faults stop, the pipeline drains, and the log is checked: nothing lost, nothing
 * charged twice.
 */
public final class ChaosRun {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Eight JVMs start at once: on a loaded 2-core machine that has taken over two minutes (the start-up is CPU-bound). */
    private static final Duration FLEET_START = Duration.ofMinutes(5);

    private final String jar;
    private final String feed;
    private final Duration duration;
    private final long seed;
    private final int perSecond;
    private final Duration drainTimeout;
    private final PrintStream out;
    private final Random random;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final Map<String, ServiceProcess> fleet = new LinkedHashMap<>();
    private Path dir;
    private LocalPostgres postgres;
    private int postgresPort;
    private RedisProcess redis;
    /**
     * The two gateways' providers, each a simulator process behind a proxy of its own: {@code sim}, the first of the
     * route for +4915 numbers, and {@code sim2}, the first for +4916 ones; each is the other's failover.
     */
    private final Map<String, Provider> providers = new LinkedHashMap<>();

    private ChaosProxy proxy;
    private ChaosWebhooks webhooks;
    private int faults;
    /**
     * {@code --gateway smpp} (issue 28): every message goes to the SMPP gateway {@code smsc}, an SMSC simulator process
     * behind a proxy of its own, whose faults include cutting and delaying that link (binds dropped) and killing the
     * SMSC with SIGKILL (restarted with fresh message ids; the receipts it owed are lost). Its journal of every accepted
     * submit_sm outlives the kills, so the check can say that no message reached it twice and that every message the
     * log says it took, it took.
     */
    private final boolean smpp;

    private volatile long smscJournaled;

    private Smsc smsc;
    private int smscRestarts;

    /**
     * {@code --ha} (issue 30): the database is a pg_auto_failover formation (a monitor, a primary and two standbys,
     * replication synchronous unless {@code --ha-async}), the fleet connects with a multi-host URL, and beside the
     * seeded faults the primary is killed with SIGKILL, its data folder deleted, {@code primaryKills} times at least
     * (each time with its WAL senders stopped for {@link #LAGGING_MS} first), a standby promoted and a
     * fresh one added. The load goes on until the last kill's formation has settled.
     */
    private final Ha ha;

    /** The HA variant's settings; null for a run on one PostgreSQL. */
    public record Ha(boolean async, int primaryKills, int nodes) {}

    private static final long LAGGING_MS = 1500;
    /** How long a killed primary may go without a successor before the run gives up on the formation. */
    private static final Duration NO_NEW_PRIMARY = Duration.ofSeconds(180);

    private Formation formation;
    private String databaseUrl;
    private volatile int primaryKills;
    /** Held by whoever pauses or restarts Redis: the fault schedule and the primary's losses run on two threads. */
    private final Object redisFaults = new Object();

    private volatile int redisEmptiedInFailover;
    private final List<Double> failoverSeconds = java.util.Collections.synchronizedList(new ArrayList<>());

    /** The SMSC simulator process, the proxy the send workers' binds go through, its configuration and journal. */
    private record Smsc(
            ServiceProcess process, int httpPort, int smppPort, ChaosProxy proxy, Path config, Path journal) {}

    public ChaosRun(
            String jar,
            Duration duration,
            long seed,
            int perSecond,
            Duration drainTimeout,
            String feed,
            String gatewayKind,
            Ha ha,
            PrintStream out) {
        this.jar = jar;
        this.ha = ha;
        this.feed = feed;
        this.smpp = "smpp".equals(gatewayKind);
        this.duration = duration;
        this.seed = seed;
        this.perSecond = perSecond;
        this.drainTimeout = drainTimeout;
        this.out = out;
        this.random = new Random(seed);
    }

    /** The run's files: the logs of every process, the PostgreSQL and Redis data; set once {@link #run()} starts. */
    public Path directory() {
        return dir;
    }

    /** Runs and prints the summary line; returns whether the guarantee held. */
    public boolean run() throws Exception {
        dir = Directories.createTemp("chaos-");
        out.printf(
                Locale.ROOT,
                "chaos: seed %d, %d s of load at %d msg/s, %s feed, %s gateway, %s, files in %s%n",
                seed,
                duration.toSeconds(),
                perSecond,
                feed,
                smpp ? "SMPP" : "HTTP",
                ha == null
                        ? "one PostgreSQL"
                        : "a pg_auto_failover formation of " + ha.nodes() + " nodes, replication "
                                + (ha.async() ? "ASYNCHRONOUS (the counter-proof)" : "synchronous"),
                dir);
        try {
            startInfrastructure();
            startFleet();
            webhooks.register(url("api-1"));
            ChaosLoad load = new ChaosLoad(List.of(url("api-1"), url("api-2")), perSecond);
            load.start();
            long end = System.nanoTime() + duration.toNanos();
            long start = System.nanoTime();
            Thread outage = sinkOutage(start, duration);
            Thread gatewayOutage = gatewayOutage(start, duration);
            Thread primaryLoss = ha == null ? null : primaryKills(start, end);
            while (System.nanoTime() < end || primaryLoss != null && primaryLoss.isAlive()) {
                Thread.sleep(4000 + random.nextInt(8000));
                if (System.nanoTime() >= end && (primaryLoss == null || !primaryLoss.isAlive())) {
                    break;
                }
                fault((System.nanoTime() - start) / 1e9);
            }
            outage.join();
            gatewayOutage.join();
            heal();
            load.close();
            ChaosCheck.Result result = drainAndCheck(load);
            ChaosWebhooks.Result hooks = webhooks.check(dataSource());
            out.printf(
                    Locale.ROOT,
                    "accepted %d, sent %d, delivered %d, unknown %d, dead %d, lost %d, double-charged %d, faults %d%n",
                    result.accepted(),
                    result.sent(),
                    result.delivered(),
                    result.unknown(),
                    result.dead(),
                    result.lost(),
                    result.doubleCharged(),
                    faults);
            out.printf(
                    Locale.ROOT,
                    "details: undelivered %d, rejected %d, not final %d, two acceptances %d, keys the provider never "
                            + "saw %d, sent without exactly one charge %d, callbacks stored and still without outcome %d, callbacks lost %d, requests "
                            + "refused or failed %d (retried with their key), messages never accepted %d%n",
                    result.undelivered(),
                    result.rejected(),
                    result.unfinished(),
                    result.doubleAccepted(),
                    result.missingKeys(),
                    result.unchargedSent(),
                    result.openCallbacks(),
                    result.callbacksLost(),
                    load.failedRequests(),
                    load.neverAccepted().size());
            out.printf(
                    Locale.ROOT,
                    "finals learned by status query %d of %d%n",
                    result.finalsByQuery(),
                    result.delivered() + result.undelivered());
            ChaosCheck.Gateways gateways = result.gateways();
            out.printf(
                    Locale.ROOT,
                    "gateways: sent via %s, messages failed over %d, submits recorded by two gateways %d%n",
                    gateways.sentVia(),
                    gateways.failedOver(),
                    gateways.seenByTwo());
            gateways.seenByTwoDetails().forEach(b -> out.println("chaos: two gateways: " + b));
            if (ha != null) {
                out.printf(
                        Locale.ROOT,
                        "ha: primary killed %d times (SIGKILL, data folder deleted, its WAL senders stopped %d ms first; Redis "
                                + "replaced by an empty one during %d of the failovers), replication %s, seconds from "
                                + "the kill to a new primary %s%n",
                        primaryKills,
                        LAGGING_MS,
                        redisEmptiedInFailover,
                        ha.async() ? "asynchronous" : "synchronous",
                        failoverSeconds);
                if (feed.equals("cdc")) {
                    // A promoted standby has no logical slot (PostgreSQL 15 does not copy slots): the feed must have
                    // created it again, and published what was owed from the log, after each loss.
                    out.printf(
                            Locale.ROOT,
                            "ha: the pollers found the feed's slot gone %d times (after a new primary; both may report one loss)%n",
                            linesContaining("poller-", "is gone (dropped, or a standby was promoted"));
                }
            }
            if (smpp) {
                out.printf(
                        Locale.ROOT,
                        "smpp: submit_sm taken by the SMSC %d, SMSC killed and restarted %d times%n",
                        smscJournaled,
                        smscRestarts);
            }
            ChaosCheck.Controls controls = result.controls();
            out.printf(
                    Locale.ROOT,
                    "controls: expired %d (%d of them seen by the provider from an attempt claimed before they expired: an answer lost,"
                            + " or a request it processed late), cancelled %d (cancels answered 200: %d, refused 409: %d, failed: %d), scheduled"
                            + " %d, breaches %d%n",
                    controls.expired(),
                    controls.expiredAfterLostAnswer(),
                    controls.cancelled(),
                    controls.cancelsAnswered(),
                    load.cancelsRefused(),
                    load.cancelsFailed(),
                    controls.scheduled(),
                    controls.breaches());
            controls.breachDetails().forEach(b -> out.println("chaos: breach: " + b));
            out.printf(
                    Locale.ROOT,
                    "webhooks: delivered %d, still owed %d, dead %d, final events owing none %d, delivered but "
                            + "never received %d, received more than once %d, failing the receiver's signature check %d%n",
                    hooks.delivered(),
                    hooks.owed(),
                    hooks.dead(),
                    hooks.notOwed(),
                    hooks.neverReceived(),
                    hooks.duplicates(),
                    hooks.unverified());
            boolean killsDone = ha == null || primaryKills >= ha.primaryKills();
            if (!killsDone) {
                out.printf(Locale.ROOT, "chaos: only %d primary losses of %d ran%n", primaryKills, ha.primaryKills());
            }
            boolean passed = result.passed() && hooks.passed() && killsDone;
            if (!passed) {
                out.println("CHAOS FAILED: the guarantee did not hold; logs are in " + dir);
            }
            return passed;
        } finally {
            shutdown();
        }
    }

    private void startInfrastructure() throws Exception {
        if (ha != null) {
            startFormation();
        } else {
            postgresPort = port();
            postgres = LocalPostgres.start(dir.resolve("postgres"), postgresPort, Map.of("max_connections", "300"));
            try (Connection c = postgres.endpoint().connect(LocalPostgres.ADMIN_DATABASE);
                    Statement st = c.createStatement()) {
                st.execute("CREATE DATABASE sendlog");
            }
            databaseUrl = "jdbc:postgresql://127.0.0.1:" + postgresPort + "/sendlog";
        }
        redis = RedisProcess.start(RedisOptions.inDirectory(dir.resolve("redis")));
        providers.put("sim", startProvider("sim", "simulator", "sim-token", "sim-secret", seed));
        providers.put("sim2", startProvider("sim2", "simulator-2", "sim2-token", "sim2-secret", seed + 1));
        proxy = providers.get("sim").proxy();
        if (smpp) {
            smsc = startSmsc();
            proxy = smsc.proxy();
        }
        webhooks = new ChaosWebhooks(port());
        writeConfig();
        migrate();
    }

    /**
     * The formation, in a folder the postgres user may enter (PostgreSQL refuses to run as root; scripts/ha runs it as
     * that user), on ports from a free block below the ephemeral range; the database created on its primary.
     */
    private void startFormation() throws Exception {
        if (!Formation.available()) {
            throw new IllegalStateException(
                    "--ha needs pg_auto_failover: apt-get install postgresql-15-auto-failover (.ci/run installs it)");
        }
        int base = freeBlock(ha.nodes() + 1);
        java.nio.file.attribute.PosixFilePermission[] open = {
            java.nio.file.attribute.PosixFilePermission.OWNER_READ,
            java.nio.file.attribute.PosixFilePermission.OWNER_WRITE,
            java.nio.file.attribute.PosixFilePermission.OWNER_EXECUTE,
            java.nio.file.attribute.PosixFilePermission.GROUP_READ,
            java.nio.file.attribute.PosixFilePermission.GROUP_EXECUTE,
            java.nio.file.attribute.PosixFilePermission.OTHERS_READ,
            java.nio.file.attribute.PosixFilePermission.OTHERS_EXECUTE
        };
        Files.setPosixFilePermissions(dir, Set.of(open));
        long t0 = System.nanoTime();
        formation = Formation.up(dir.resolve("ha"), base, ha.nodes(), ha.async(), dir.resolve("ha.log"));
        out.printf(Locale.ROOT, "chaos: formation up in %.0f s%n", (System.nanoTime() - t0) / 1e9);
        PGSimpleDataSource admin = new PGSimpleDataSource();
        admin.setUrl(formation.jdbcUrl("postgres"));
        admin.setUser(LocalPostgres.SUPERUSER);
        try (Connection c = admin.getConnection();
                Statement st = c.createStatement()) {
            st.execute("CREATE DATABASE sendlog");
        }
        databaseUrl = formation.jdbcUrl("sendlog");
    }

    private void pauseRedis(double atSeconds, int ms) throws Exception {
        log(atSeconds, "Redis paused for " + ms + " ms");
        synchronized (redisFaults) {
            redis.pause();
            Thread.sleep(ms);
            redis.resume();
        }
    }

    /** Lines holding {@code text} in the logs of the processes whose names start with {@code prefix}. */
    private long linesContaining(String prefix, String text) throws java.io.IOException {
        long n = 0;
        try (var logs = Files.list(dir)) {
            for (Path log : logs.filter(f -> f.getFileName().toString().startsWith(prefix)
                            && f.getFileName().toString().endsWith(".log"))
                    .toList()) {
                try (var lines = Files.lines(log)) {
                    n += lines.filter(l -> l.contains(text)).count();
                }
            }
        }
        return n;
    }

    /** The first of {@code n} consecutive free ports below the ephemeral range. */
    private int freeBlock(int n) {
        for (int i = 0; i < 1000; i++) {
            int candidate = 20_000 + random.nextInt(12_000 - n);
            boolean free = true;
            for (int k = 0; k < n && free; k++) {
                free = !taken.contains(candidate + k) && FreePorts.isFree(candidate + k);
            }
            if (free) {
                for (int k = 0; k < n; k++) {
                    taken.add(candidate + k);
                }
                return candidate;
            }
        }
        throw new IllegalStateException("no " + n + " consecutive free ports found in 20000-31999");
    }

    /**
     * The primary's losses: every 10 to 20 s, standbys held back, the primary killed and its folder deleted, a standby
     * promoted by the monitor, a fresh standby put in the dead one's place; at least {@code primaryKills} times, and on
     * until the load's time is up.
     */
    private Thread primaryKills(long start, long end) {
        Random schedule = new Random(seed ^ 0x9e3779b97f4a7c15L);
        return Thread.ofPlatform().name("chaos-primary-kills").start(() -> {
            try {
                while (primaryKills < ha.primaryKills() || System.nanoTime() < end) {
                    Thread.sleep(10_000 + schedule.nextInt(10_000));
                    long killedAt = System.nanoTime();
                    int node = formation.killPrimary(LAGGING_MS);
                    primaryKills++;
                    out.printf(
                            Locale.ROOT,
                            "chaos: t+%.1fs primary loss %d: node %d killed with SIGKILL and its data folder deleted "
                                    + "(its WAL senders stopped %d ms first)%n",
                            (killedAt - start) / 1e9,
                            primaryKills,
                            node,
                            LAGGING_MS);
                    if (primaryKills % 2 == 0) {
                        // Every second loss, Redis replaced by an empty one before the new primary is there: the jobs
                        // are gone with it, and only the log (once it has a primary again) says what is owed.
                        synchronized (redisFaults) {
                            redis.restart();
                        }
                        redisEmptiedInFailover++;
                        out.printf(
                                Locale.ROOT,
                                "chaos: t+%.1fs Redis replaced by an empty one during the failover%n",
                                (System.nanoTime() - start) / 1e9);
                    }
                    // Polls the monitor's view (a script call) until a standby has taken over; a formation that
                    // promotes nobody ends the losses here, and the run fails for the kills that did not happen.
                    long giveUpAt = killedAt + NO_NEW_PRIMARY.toNanos();
                    for (int primary = formation.primary(); primary == 0 || primary == node; ) {
                        if (System.nanoTime() > giveUpAt) {
                            throw new java.io.IOException("no new primary " + NO_NEW_PRIMARY.toSeconds()
                                    + " s after node " + node + " was killed");
                        }
                        Thread.sleep(200);
                        primary = formation.primary();
                    }
                    double failover = (System.nanoTime() - killedAt) / 1e9;
                    failoverSeconds.add(Math.round(failover * 10) / 10.0);
                    formation.replace(node);
                    out.printf(
                            Locale.ROOT,
                            "chaos: t+%.1fs node %d promoted %.1f s after the kill; a fresh standby in node %d's place "
                                    + "caught up%n",
                            (System.nanoTime() - start) / 1e9,
                            formation.primary(),
                            failover,
                            node);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.io.IOException e) {
                out.println("chaos: the formation failed: " + e);
            }
        });
    }

    /** A gateway's provider: its simulator process (its records, stats and callback log) and the proxy the workers call. */
    private record Provider(
            String gateway, ServiceProcess process, int port, ChaosProxy proxy, String token, String secret) {
        String url() {
            return "http://127.0.0.1:" + port;
        }
    }

    private Provider startProvider(String gateway, String name, String token, String secret, long providerSeed)
            throws Exception {
        int simulatorPort = port();
        Path simConfig = dir.resolve(name + ".json");
        // Each provider answers 5% of submits 503 (refused before acceptance: a routed message fails over), drops 2% of
        // answers after accepting (unknown: it never does), and forgets 5% of its callbacks.
        Files.writeString(simConfig, """
                {"latencyMs": 20, "latencyJitterMs": 10, "latencyDistribution": "UNIFORM", "transientErrorRate": 0.05,
                 "dropAfterAcceptRate": 0.02, "idWrapModulus": 1000, "receiptMode": "DUPLICATED", "intermediateReceipts": 1,
                 "receiptDelayMs": 20, "callbackMaxAttempts": 100000, "callbackConcurrency": 32, "callbackLossRate": 0.05,
                 "token": "%s", "callbackSecret": "%s", "seed": %d}""".formatted(token, secret, providerSeed));
        ServiceProcess process = startSimulator(name, simulatorPort, "--config", simConfig.toString());
        return new Provider(gateway, process, simulatorPort, new ChaosProxy(simulatorPort), token, secret);
    }

    /** A simulator process on {@code httpPort} with these arguments, started and answering. */
    private ServiceProcess startSimulator(String name, int httpPort, String... arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of("simulator", "--port", Integer.toString(httpPort)));
        command.addAll(List.of(arguments));
        ServiceProcess process = new ServiceProcess(
                name,
                ServiceProcess.javaCommand(Jars.tools(), List.of("-Xmx256m"), command),
                Map.of(),
                dir.resolve(name + ".log"),
                httpPort);
        process.start();
        awaitHttp("http://127.0.0.1:" + httpPort + "/v1/stats");
        return process;
    }

    private Smsc startSmsc() throws Exception {
        int httpPort = port();
        int smppPort = port();
        Path config = dir.resolve("smsc.json");
        Path journal = dir.resolve("smsc-journal.jsonl");
        writeSmscConfig(config);
        ServiceProcess process = startSimulator(
                "smsc",
                httpPort,
                "--smpp-port",
                Integer.toString(smppPort),
                "--smpp-config",
                config.toString(),
                "--smpp-journal",
                journal.toString());
        return new Smsc(process, httpPort, smppPort, new ChaosProxy(smppPort), config, journal);
    }

    /**
     * The SMSC's behaviour: 20 ms a submit, 2% of its answers lost (the message UNKNOWN, never sent twice), a final
     * receipt for each, and message ids that a restart never gives again (an SMSC's ids are unique for a long while).
     */
    private void writeSmscConfig(Path config) throws java.io.IOException {
        Files.writeString(config, """
                {"latencyMs": 20, "loseResponseRate": 0.02, "receipts": "FINAL", "receiptDelayMs": 50,
                 "firstId": %d}""".formatted(System.currentTimeMillis() * 1000));
    }

    /**
     * The fleet's configuration: the project's config.yml with the second gateway and the two routes added (a message
     * names no gateway in this run, so each goes by its route). Its ${...} placeholders are filled here from the fleet's
     * environment, as each process would fill them (the file is YAML only once they are).
     */
    private void writeConfig() throws java.io.IOException {
        ObjectMapper yaml = new ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory());
        Map<String, String> variables = new HashMap<>(System.getenv());
        variables.putAll(environment());
        String text = new org.apache.commons.text.StringSubstitutor(variables)
                .replace(Files.readString(Path.of("config.yml")));
        com.fasterxml.jackson.databind.node.ObjectNode config =
                (com.fasterxml.jackson.databind.node.ObjectNode) yaml.readTree(text);
        com.fasterxml.jackson.databind.node.ObjectNode gateways = config.withObject("/gateways");
        // The demo's SMPP gateway; the SMPP variant configures its own below.
        gateways.remove("smsc");
        for (Provider p : providers.values()) {
            gateways.withObject("/" + p.gateway())
                    .put("baseUrl", "http://127.0.0.1:" + p.proxy().port())
                    .put("token", p.token())
                    .put("callbackSecret", p.secret())
                    .put("vocabulary", "smpp")
                    .put("connectTimeoutMs", 2000)
                    .put("requestTimeoutMs", 10000)
                    // The provider forgets 5% of its callbacks (issue 32): their outcomes are asked for, in seconds.
                    .put("statusQuery", true)
                    .put("queriesPerSecond", 20)
                    // Never the wall at the load's rate, but every submit takes its tokens from the shared bucket
                    // (and, with the tenant lane below, through the fair-share turnstile) while Redis restarts.
                    .put("maxPerSecond", 500);
        }
        // The load's tenant has a lane of its own (issue 29): its normal messages go through their own shards, stream,
        // poller and workers, its high ones through the high lane, under every fault (with CDC, the lane is polled).
        config.withObject("/tenants").withObject("/demo").put("weight", 1);
        com.fasterxml.jackson.databind.node.ArrayNode routes = config.putArray("routes");
        if (smpp) {
            com.fasterxml.jackson.databind.node.ObjectNode g = gateways.withObject("/smsc")
                    .put("type", "smpp")
                    .put("vocabulary", "smpp")
                    .put("requestTimeoutMs", 5000)
                    .put("maxPerSecond", 500)
                    .put("downAfterFailures", 0);
            g.withObject("/smpp")
                    .put("host", "127.0.0.1")
                    .put("port", smsc.proxy().port())
                    .put("systemId", "sendlog")
                    .put("password", "secret")
                    .put("sessions", 2)
                    .put("window", 16)
                    .put("enquireLinkInterval", "5s")
                    .put("bindTimeout", "3s")
                    .put("reconnectMin", "100ms")
                    .put("reconnectMax", "2s")
                    .put("idFormat", "as-is");
            // SMPP has no query_sm here, and a killed SMSC loses the receipts it owed: such messages are UNKNOWN by the
            // rules at the end of a short window (and a late final still wins).
            config.withObject("/pipeline").put("reconcileWindow", "30s");
            routes.addObject().putArray("gateways").add("smsc");
        } else {
            routes.addObject()
                    .put("prefix", "+4916")
                    .putArray("gateways")
                    .add("sim2")
                    .add("sim");
            routes.addObject().putArray("gateways").add("sim").add("sim2");
        }
        yaml.writeValue(configFile().toFile(), config);
    }

    private Path configFile() {
        return dir.resolve("chaos-config.yml");
    }

    private void migrate() throws Exception {
        ServiceProcess.migrate(jar, environment(), dir.resolve("migrate.log"));
    }

    private final Map<String, int[]> ports = new LinkedHashMap<>();
    private final Set<Integer> taken = new HashSet<>();

    /**
     * A free port below Linux's ephemeral range (32768 and up): a port from that range can be handed to an outgoing
     * connection by the time a restarted process wants to bind it again.
     */
    private int port() {
        for (int i = 0; i < 1000; i++) {
            int candidate = 20_000 + random.nextInt(12_000);
            if (taken.add(candidate) && FreePorts.isFree(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("no free port found in 20000-31999");
    }

    private void startFleet() throws Exception {
        for (String name : List.of(
                "api-1",
                "api-2",
                "maintenance-1",
                "poller-1",
                "poller-2",
                "send-worker-1",
                "send-worker-2",
                "callback-worker-1",
                "webhook-worker-1")) {
            ports.put(name, new int[] {port(), port()});
        }
        for (String name : ports.keySet()) {
            String command = name.substring(0, name.lastIndexOf('-'));
            int[] p = ports.get(name);
            List<String> options = new ArrayList<>(List.of(
                    "-Xmx256m",
                    "-XX:+UseSerialGC",
                    "-XX:TieredStopAtLevel=1",
                    "-Djava.io.tmpdir=" + dir.resolve("tmp"),
                    "-Ddw.server.applicationConnectors[0].port=" + p[0],
                    "-Ddw.server.adminConnectors[0].port=" + p[1],
                    "-Ddw.publicBaseUrl=" + url("api-1"),
                    "-Ddw.logging.level=WARN",
                    "-Ddw.database.pools.api=4",
                    "-Ddw.database.pools.pipeline=6",
                    "-Ddw.database.pools.callbacks=8",
                    "-Ddw.receipts.concurrency=32",
                    "-Ddw.database.pools.maintenance=2",
                    "-Ddw.pipeline.leaseTtl=5s",
                    "-Ddw.pipeline.confirmTimeout=5s",
                    "-Ddw.pipeline.claimTimeout=10s",
                    "-Ddw.pipeline.retryBase=200ms",
                    "-Ddw.pipeline.retryCap=2s",
                    "-Ddw.pipeline.maxAttempts=30",
                    "-Ddw.pipeline.reconcileWindow=60s",
                    "-Ddw.pipeline.timerIntervalMs=200",
                    "-Ddw.pipeline.sendWorker.reclaimIdle=10s",
                    "-Ddw.receipts.holdWindow=20s",
                    // Webhook retries in seconds, not hours, so the run drains soon after the receiver's outage.
                    "-Ddw.webhooks.allowPrivateTargets=true",
                    "-Ddw.webhooks.timeout=2s",
                    "-Ddw.webhooks.connectTimeout=1s",
                    "-Ddw.webhooks.leaseTimeout=10s",
                    "-Ddw.webhooks.firstRetryWait=200ms",
                    "-Ddw.webhooks.maxRetryWait=5s",
                    "-Ddw.database.pools.webhooks=2",
                    "-Ddw.pipeline.reconcile.queryAfter=5s",
                    "-Ddw.pipeline.reconcile.grace=10s",
                    "-Ddw.pipeline.reconcile.retryEvery=2s"));
            Files.createDirectories(dir.resolve("tmp"));
            ServiceProcess process = new ServiceProcess(
                    name,
                    ServiceProcess.javaCommand(
                            jar, options, List.of(command, configFile().toString())),
                    environment(),
                    dir.resolve(name + ".log"),
                    p[1]);
            fleet.put(name, process);
            process.start();
        }
        for (ServiceProcess p : fleet.values()) {
            if (!p.awaitReady(FLEET_START)) {
                throw new IllegalStateException(p.name() + " did not start; see " + dir.resolve(p.name() + ".log"));
            }
        }
        out.println("chaos: fleet up: " + fleet.keySet());
    }

    private Map<String, String> environment() {
        return Map.of(
                "SENDLOG_DATABASE_URL",
                databaseUrl,
                "SENDLOG_REDIS_SEND_URI",
                redis.endpoint().uri(),
                "SENDLOG_REDIS_CALLBACK_URI",
                redis.endpoint().uri(),
                "SENDLOG_REDIS_PREFIX",
                "chaos:",
                "SENDLOG_FEED",
                feed,
                "SENDLOG_ACCESS_LOG",
                "WARN");
    }

    private String url(String name) {
        return "http://127.0.0.1:" + ports.get(name)[0];
    }

    /**
     * The webhook receiver's outage (issue 27): down for 30 s from 20 s into the load (or a third of a shorter run), beside
     * the seeded faults rather than one of them, so every run has it.
     */
    private Thread sinkOutage(long start, Duration load) {
        long from = Math.min(Duration.ofSeconds(20).toNanos(), load.toNanos() / 3);
        long length = Math.min(Duration.ofSeconds(30).toNanos(), load.toNanos() / 3);
        return Thread.ofPlatform().name("chaos-webhook-outage").start(() -> {
            try {
                Thread.sleep(Math.max(0, (start + from - System.nanoTime()) / 1_000_000));
                out.printf(
                        Locale.ROOT,
                        "chaos: t+%.1fs the webhook receiver down for %d s%n",
                        (System.nanoTime() - start) / 1e9,
                        length / 1_000_000_000L);
                webhooks.down();
                Thread.sleep(length / 1_000_000);
                webhooks.up();
                out.printf(
                        Locale.ROOT,
                        "chaos: t+%.1fs the webhook receiver up again%n",
                        (System.nanoTime() - start) / 1e9);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.io.IOException e) {
                out.println("chaos: the webhook receiver did not start again: " + e);
            }
        });
    }

    /**
     * The second gateway's host refusing connections (issue 29): for 10 s from half the load on (or a sixth of a shorter
     * run), beside the seeded faults, which never touch this gateway's proxy. Its routed messages (+4916 numbers) must
     * pass to sim uncalled once the send workers mark it down, and those it may have taken (a submit cut on an open
     * connection) must stay with it: the check fails on any submit both providers recorded.
     */
    private Thread gatewayOutage(long start, Duration load) {
        long from = load.toNanos() / 2;
        long length = Math.min(Duration.ofSeconds(10).toNanos(), load.toNanos() / 6);
        ChaosProxy sim2 = providers.get("sim2").proxy();
        return Thread.ofPlatform().name("chaos-gateway-outage").start(() -> {
            try {
                Thread.sleep(Math.max(0, (start + from - System.nanoTime()) / 1_000_000));
                out.printf(
                        Locale.ROOT,
                        "chaos: t+%.1fs gateway sim2 refuses connections for %d s%n",
                        (System.nanoTime() - start) / 1e9,
                        length / 1_000_000_000L);
                sim2.refuse();
                Thread.sleep(length / 1_000_000);
                sim2.normal();
                out.printf(
                        Locale.ROOT,
                        "chaos: t+%.1fs gateway sim2 takes connections again%n",
                        (System.nanoTime() - start) / 1e9);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.io.IOException e) {
                out.println("chaos: the proxy of sim2 did not listen again: " + e);
            }
        });
    }

    private PGSimpleDataSource dataSource() {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(databaseUrl);
        ds.setUser(LocalPostgres.SUPERUSER);
        return ds;
    }

    /** One fault from the seeded schedule; it ends before the next begins. */
    private void fault(double atSeconds) throws Exception {
        faults++;
        int kind = random.nextInt(smpp ? 8 : 7);
        if (kind == 7) {
            int downMs = 500 + random.nextInt(2500);
            log(atSeconds, "kill -9 the SMSC, restart after " + downMs + " ms (its owed receipts lost)");
            smsc.process().kill();
            Thread.sleep(downMs);
            writeSmscConfig(smsc.config());
            smsc.process().start();
            smscRestarts++;
            return;
        }
        List<String> names = new ArrayList<>(fleet.keySet());
        switch (kind) {
            case 0, 1 -> {
                ServiceProcess victim = fleet.get(names.get(random.nextInt(names.size())));
                int downMs = 1000 + random.nextInt(4000);
                log(atSeconds, "kill -9 " + victim.name() + ", restart after " + downMs + " ms");
                victim.kill();
                Thread.sleep(downMs);
                victim.start();
            }
            case 2 -> {
                log(atSeconds, "Redis restarted with its data lost");
                synchronized (redisFaults) {
                    redis.restart();
                }
            }
            case 3 -> pauseRedis(atSeconds, 2000 + random.nextInt(4000));
            case 4 -> {
                if (ha != null) {
                    // The formation's faults are the primary's losses (their own schedule); here, a Redis pause.
                    pauseRedis(atSeconds, 2000 + random.nextInt(2000));
                    return;
                }
                log(atSeconds, "PostgreSQL restarted (fast shutdown)");
                postgres.close();
                Thread.sleep(500 + random.nextInt(1500));
                postgres = LocalPostgres.start(dir.resolve("postgres"), postgresPort, Map.of("max_connections", "300"));
            }
            case 5 -> {
                int delay = 200 + random.nextInt(800);
                int ms = 3000 + random.nextInt(5000);
                log(atSeconds, "network to the provider delayed " + delay + " ms for " + ms + " ms");
                proxy.delay(delay);
                Thread.sleep(ms);
                proxy.normal();
            }
            default -> {
                int ms = 2000 + random.nextInt(3000);
                log(atSeconds, "network to the provider cut for " + ms + " ms");
                proxy.cut();
                Thread.sleep(ms);
                proxy.normal();
            }
        }
    }

    private void log(double atSeconds, String what) {
        out.printf(Locale.ROOT, "chaos: t+%.1fs fault %d: %s%n", atSeconds, faults, what);
    }

    /** Everything back up: every process alive, Redis running, the network clean. */
    private void heal() throws Exception {
        for (Provider p : providers.values()) {
            p.proxy().normal();
        }
        if (smsc != null) {
            smsc.proxy().normal();
            if (!smsc.process().isAlive()) {
                writeSmscConfig(smsc.config());
                smsc.process().start();
            }
            awaitHttp("http://127.0.0.1:" + smsc.httpPort() + "/v1/stats");
        }
        if (!redis.isRunning()) {
            redis.restart();
        }
        for (ServiceProcess p : fleet.values()) {
            if (!p.isAlive()) {
                p.start();
            }
        }
        for (ServiceProcess p : fleet.values()) {
            p.awaitReady(FLEET_START);
        }
        out.println("chaos: faults stopped, fleet healthy again; draining");
    }

    private ChaosCheck.Result drainAndCheck(ChaosLoad load) throws Exception {
        PGSimpleDataSource ds = dataSource();
        long deadline = System.nanoTime() + drainTimeout.toNanos();
        ChaosCheck.Result result;
        while (true) {
            long pending = 0;
            long callbacksFailed = 0;
            for (Provider p : providers.values()) {
                JsonNode stats = json(p.url() + "/v1/stats");
                pending += stats.path("callbacksSent").asLong()
                        - stats.path("callbacksDelivered").asLong()
                        - stats.path("callbacksFailed").asLong();
                callbacksFailed += stats.path("callbacksFailed").asLong();
            }
            result = ChaosCheck.check(ds, load.accepted(), this::records, load.cancelled(), callbacksFailed);
            long webhooksOwed = ChaosWebhooks.owed(ds);
            boolean drained =
                    result.unfinished() == 0 && result.openCallbacks() == 0 && pending == 0 && webhooksOwed == 0;
            if (drained || System.nanoTime() > deadline) {
                if (!drained) {
                    out.printf(
                            Locale.ROOT,
                            "chaos: drain timed out: %d messages not final, %d callbacks open, %d pending at the "
                                    + "provider, %d webhook deliveries owed%n",
                            result.unfinished(),
                            result.openCallbacks(),
                            pending,
                            webhooksOwed);
                }
                long inbox = ChaosCheck.count(ds, "SELECT count(*) FROM callback_inbox");
                long distinctDelivered = distinctDeliveredCallbacks();
                if (distinctDelivered > inbox) {
                    // A callback the provider saw answered 200 must have an inbox row: its own, or the row of the same
                    // body sent before (the duplicated receipts of this run are byte for byte the same: one row holds
                    // them).
                    result = result.withCallbacksLost(result.callbacksLost() + distinctDelivered - inbox);
                }
                return result;
            }
            Thread.sleep(5000);
        }
    }

    /**
     * Distinct callbacks the providers got a 2xx for: equal gateway, id, reference, status and time make equal bodies
     * (each gateway's inbox rows are its own).
     */
    private long distinctDeliveredCallbacks() throws Exception {
        Set<String> distinct = new HashSet<>();
        for (Provider p : providers.values()) {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create(p.url() + "/v1/callbacks/log"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            for (String line : r.body().lines().toList()) {
                JsonNode e = JSON.readTree(line);
                if (e.path("delivered").asBoolean()) {
                    distinct.add(p.gateway() + "|" + e.path("id").asText() + "|"
                            + e.path("reference").asText() + "|"
                            + e.path("status").asText() + "|"
                            + e.path("timestamp").asText());
                }
            }
        }
        return distinct.size();
    }

    /** Per gateway, every idempotency key its provider recorded, with the epoch microseconds of its first accepted submit. */
    private Map<String, Map<String, Long>> records() throws Exception {
        Map<String, Map<String, Long>> byGateway = new LinkedHashMap<>();
        for (Provider p : providers.values()) {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create(p.url() + "/v1/records")).build(),
                    HttpResponse.BodyHandlers.ofString());
            Map<String, Long> records = new HashMap<>();
            for (String line : r.body().lines().toList()) {
                JsonNode record = JSON.readTree(line);
                records.put(
                        record.path("key").asText(),
                        record.path("recordedAtMicros").asLong());
            }
            byGateway.put(p.gateway(), records);
        }
        if (smsc != null) {
            smscRecords(byGateway);
        }
        return byGateway;
    }

    /**
     * The SMSC's journal as records of gateway {@code smsc}: a submit_sm carries no key of ours, so each is matched to
     * its message by recipient and body (the load's bodies are unique). A message whose part the SMSC took twice is
     * also recorded under {@code smsc (again)}, which the check counts as recorded by two gateways: sent twice.
     */
    private void smscRecords(Map<String, Map<String, Long>> byGateway) throws Exception {
        Map<String, String> messageOf = new HashMap<>();
        PGSimpleDataSource ds = dataSource();
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement();
                java.sql.ResultSet rs = st.executeQuery("SELECT id, recipient, body FROM messages")) {
            while (rs.next()) {
                messageOf.put(rs.getString(2).substring(1) + "|" + rs.getString(3), rs.getString(1));
            }
        }
        Map<String, Long> records = new HashMap<>();
        Map<String, Long> again = new HashMap<>();
        Set<String> parts = new HashSet<>();
        List<String> lines = Files.exists(smsc.journal()) ? Files.readAllLines(smsc.journal()) : List.of();
        for (String line : lines) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode j = JSON.readTree(line);
            String id = messageOf.get(
                    j.path("destAddr").asText() + "|" + j.path("text").asText());
            if (id == null) {
                continue; // a part of a longer body, or no message of ours: nothing of the load
            }
            long micros = java.time.temporal.ChronoUnit.MICROS.between(
                    java.time.Instant.EPOCH,
                    java.time.Instant.parse(j.path("at").asText()));
            String key = "sendlog-" + id;
            records.merge(key, micros, Math::min);
            if (!parts.add(key + "|" + j.path("partNumber").asInt())) {
                again.merge(key, micros, Math::min);
            }
        }
        byGateway.put("smsc", records);
        byGateway.put("smsc (again)", again);
        smscJournaled = lines.size();
    }

    private JsonNode json(String url) throws Exception {
        return JSON.readTree(
                http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString())
                        .body());
    }

    private void awaitHttp(String url) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.discarding())
                                .statusCode()
                        == 200) {
                    return;
                }
            } catch (java.io.IOException notYet) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException(url + " did not answer");
    }

    private void shutdown() {
        for (ServiceProcess p : fleet.values()) {
            try {
                p.stop();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (Provider p : providers.values()) {
            try {
                p.process().stop();
                p.proxy().close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.io.IOException e) {
                out.println("chaos: closing the proxy of " + p.gateway() + " failed: " + e);
            }
        }
        if (smsc != null) {
            try {
                smsc.process().stop();
                smsc.proxy().close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.io.IOException e) {
                out.println("chaos: closing the SMSC's proxy failed: " + e);
            }
        }
        if (webhooks != null) {
            webhooks.close();
        }
        if (redis != null) {
            redis.close();
        }
        if (postgres != null) {
            postgres.close();
        }
        if (formation != null) {
            try {
                formation.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.io.IOException e) {
                out.println("chaos: removing the formation failed: " + e);
            }
        }
    }
}
