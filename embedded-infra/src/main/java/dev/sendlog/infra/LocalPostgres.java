package dev.sendlog.infra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL from the zonky binaries, run in the foreground as a child of this JVM (PID 1
 * here does not reap daemonised processes, so no pg_ctl). Its data directory is kept: starting
 * again on the same folder finds the data of the previous run.
 *
 * <p>The folder holds {@code pgdata/} (the cluster), {@code postgres.log} and {@code owner.lock}.
 */
public final class LocalPostgres implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LocalPostgres.class);

    public static final String SUPERUSER = "postgres";
    public static final String ADMIN_DATABASE = "postgres";
    /**
     * Applied unless the caller overrides them. {@code wal_level=logical} lets the poller's change-data-capture feed
     * run on the embedded server too; it adds little to the WAL of a table without updates.
     */
    public static final Map<String, String> DEFAULT_SETTINGS = Map.of(
            "max_connections", "200", "wal_level", "logical", "max_replication_slots", "16", "max_wal_senders", "16");

    private static final String HOST = "127.0.0.1";
    private static final Duration INITDB_TIMEOUT = Duration.ofMinutes(2);
    // Crash recovery after an unclean stop can take a while; a clean start takes a second or two.
    private static final Duration START_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
    /** After the fast and then the immediate shutdown: how long the postmaster gets before it and its backends are killed. */
    private static final Duration KILL_AFTER = Duration.ofSeconds(10);

    private static final int START_ATTEMPTS_ON_CHOSEN_PORT = 3;

    private final Path dataDir;
    private final Process process;
    private final PostgresEndpoint endpoint;
    private final OwnerLock ownerLock;
    private final ShutdownHook shutdownHook;
    private boolean closed;

    private Duration fastStop = STOP_TIMEOUT;
    private Duration immediateStop = KILL_AFTER;

    /** For tests of a server that does not stop: how long the fast and then the immediate shutdown may take. */
    void stopTimeouts(Duration fast, Duration immediate) {
        this.fastStop = fast;
        this.immediateStop = immediate;
    }

    private LocalPostgres(Path dataDir, Process process, PostgresEndpoint endpoint, OwnerLock ownerLock) {
        this.dataDir = dataDir;
        this.process = process;
        this.endpoint = endpoint;
        this.ownerLock = ownerLock;
        this.shutdownHook = ShutdownHook.register("stop-postgres-" + process.pid(), this::stopServer);
    }

    /**
     * Starts PostgreSQL on {@code dataDir}, creating the cluster on first use.
     *
     * @param port           0 for any free port
     * @param serverSettings server parameters (e.g. wal_level=logical) added to and overriding {@link #DEFAULT_SETTINGS}
     */
    public static LocalPostgres start(Path dataDir, int port, Map<String, String> serverSettings) {
        return start(dataDir, port == 0 ? PortChoice.ANY : PortChoice.exactly(port), serverSettings);
    }

    /** Like {@link #start} on {@code preferredPort}, or on a free port when that one is busy. */
    public static LocalPostgres startPreferringPort(
            Path dataDir, int preferredPort, Map<String, String> serverSettings) {
        return start(dataDir, PortChoice.preferring(preferredPort), serverSettings);
    }

    private static LocalPostgres start(Path dataDir, PortChoice portChoice, Map<String, String> serverSettings) {
        long startNanos = System.nanoTime();
        Path folder = dataDir.toAbsolutePath();
        createDirectories(folder);
        OwnerLock ownerLock = OwnerLock.acquire(folder.resolve("owner.lock"), "PostgreSQL data folder " + folder);
        try {
            Path pgData = folder.resolve("pgdata");
            OrphanedServer.stopIfRunning(pgData.resolve("postmaster.pid"), "postgres", "INT", STOP_TIMEOUT);
            Path installation = PostgresBinaries.install();
            Path logFile = folder.resolve("postgres.log");
            if (!Files.isRegularFile(pgData.resolve("PG_VERSION"))) {
                initdb(installation, pgData, logFile);
            }
            Map<String, String> settings = new LinkedHashMap<>(DEFAULT_SETTINGS);
            settings.putAll(serverSettings);
            LocalPostgres postgres =
                    launchWithRetries(folder, pgData, installation, logFile, portChoice, settings, ownerLock);
            LOG.info(
                    "PostgreSQL (embedded) ready on {}:{} with data in {} after {} ms (pid {}, log {})",
                    HOST,
                    postgres.endpoint.port(),
                    pgData,
                    (System.nanoTime() - startNanos) / 1_000_000,
                    postgres.pid(),
                    logFile);
            return postgres;
        } catch (RuntimeException e) {
            ownerLock.close();
            throw e;
        }
    }

    private static LocalPostgres launchWithRetries(
            Path folder,
            Path pgData,
            Path installation,
            Path logFile,
            PortChoice portChoice,
            Map<String, String> settings,
            OwnerLock ownerLock) {
        for (int attempt = 1; ; attempt++) {
            int port = portChoice.resolve();
            try {
                return launch(folder, pgData, installation, logFile, port, settings, ownerLock);
            } catch (ServerStartException e) {
                // A port we picked as free can be taken before the server binds it; then pick another.
                boolean portTaken = e.getMessage().contains("could not bind")
                        || e.getMessage().contains("Address already in use");
                if (!portTaken || !portChoice.mayChange() || attempt == START_ATTEMPTS_ON_CHOSEN_PORT) {
                    throw e;
                }
                LOG.warn("Port {} was taken before PostgreSQL could bind it; trying another", port, e);
            }
        }
    }

    private static LocalPostgres launch(
            Path folder,
            Path pgData,
            Path installation,
            Path logFile,
            int port,
            Map<String, String> settings,
            OwnerLock ownerLock) {
        List<String> arguments = new ArrayList<>(List.of(
                "-D",
                pgData.toString(),
                "-p",
                Integer.toString(port),
                "-c",
                "listen_addresses=" + HOST,
                // TCP only: a socket in /tmp would be shared by every cluster on the machine.
                "-c",
                "unix_socket_directories="));
        settings.forEach((name, value) -> arguments.addAll(List.of("-c", name + "=" + value)));
        ProcessBuilder builder = new ProcessBuilder(PostgresCommand.of(installation, "postgres", arguments))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new ServerStartException("could not run " + builder.command(), e);
        }
        PostgresEndpoint endpoint = new PostgresEndpoint(HOST, port, SUPERUSER, "", ADMIN_DATABASE);
        try {
            Readiness.await(
                    "PostgreSQL on port " + port,
                    process,
                    START_TIMEOUT,
                    logFile,
                    () -> PostgresAdmin.checkAnswers(endpoint, pgData));
        } catch (RuntimeException e) {
            process.destroyForcibly();
            waitForExit(process, STOP_TIMEOUT);
            throw e;
        }
        return new LocalPostgres(folder, process, endpoint, ownerLock);
    }

    /** initdb into a sibling folder, then a rename: a crash mid-way never leaves a half cluster behind. */
    private static void initdb(Path installation, Path pgData, Path logFile) {
        if (Files.exists(pgData) && !isEmptyDirectory(pgData)) {
            throw new IllegalStateException(pgData + " exists but holds no PostgreSQL cluster (no PG_VERSION); "
                    + "move it away or choose another data folder");
        }
        Path staging = pgData.resolveSibling(pgData.getFileName() + ".initdb");
        Directories.deleteRecursively(staging);
        long startNanos = System.nanoTime();
        List<String> arguments = List.of(
                "-D",
                staging.toString(),
                "-U",
                SUPERUSER,
                "--auth=trust",
                "--encoding=UTF8",
                "--locale=C",
                "--no-instructions");
        ProcessBuilder builder = new ProcessBuilder(PostgresCommand.of(installation, "initdb", arguments))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        try {
            Process initdb = builder.start();
            if (!initdb.waitFor(INITDB_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                initdb.destroyForcibly();
                throw new ServerStartException(
                        "initdb did not finish within " + INITDB_TIMEOUT.toSeconds() + " s; " + LogTail.of(logFile));
            }
            if (initdb.exitValue() != 0) {
                throw new ServerStartException(
                        "initdb failed with exit code " + initdb.exitValue() + "; " + LogTail.of(logFile));
            }
            Files.deleteIfExists(pgData);
            Files.move(staging, pgData);
        } catch (IOException e) {
            throw new ServerStartException("could not create a PostgreSQL cluster in " + pgData, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ServerStartException("interrupted while creating a PostgreSQL cluster in " + pgData, e);
        }
        LOG.info(
                "Created a new PostgreSQL cluster in {} in {} ms",
                pgData,
                (System.nanoTime() - startNanos) / 1_000_000);
    }

    public PostgresEndpoint endpoint() {
        return endpoint;
    }

    public long pid() {
        return process.pid();
    }

    /** The folder given to {@link #start}. */
    public Path dataDir() {
        return dataDir;
    }

    public boolean isRunning() {
        return process.isAlive();
    }

    /** Fast shutdown (SIGINT: running transactions roll back, data on disk is kept). */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        shutdownHook.cancel();
        try {
            stopServer();
        } finally {
            ownerLock.close();
        }
    }

    private synchronized void stopServer() {
        if (!process.isAlive()) {
            return;
        }
        Signals.send(process.pid(), "INT");
        if (!waitForExit(process, fastStop)) {
            // Immediate shutdown next: the postmaster still takes its backends down with it.
            LOG.warn(
                    "PostgreSQL (pid {}) did not stop within {} s; immediate shutdown",
                    process.pid(),
                    fastStop.toSeconds());
            Signals.send(process.pid(), "QUIT");
        }
        if (!waitForExit(process, immediateStop)) {
            // Its backends are listed before it dies: killed alone, it would leave them holding the shared memory
            // (reparented, no longer its descendants), and the next start on this folder would fail
            // ("pre-existing shared memory block is still in use").
            List<ProcessHandle> backends = process.descendants().toList();
            LOG.warn(
                    "PostgreSQL (pid {}) did not stop; killing it and its {} backends", process.pid(), backends.size());
            process.destroyForcibly();
            backends.forEach(ProcessHandle::destroyForcibly);
            waitForExit(process, STOP_TIMEOUT);
            for (ProcessHandle backend : backends) {
                try {
                    backend.onExit().get(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                } catch (Exception e) {
                    LOG.warn("PostgreSQL backend {} did not exit: {}", backend.pid(), e.toString());
                }
            }
        }
        LOG.info("PostgreSQL on port {} stopped (data kept in {})", endpoint.port(), dataDir);
    }

    private static boolean waitForExit(Process process, Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(
                    "interrupted while waiting for PostgreSQL (pid " + process.pid() + ") to stop", e);
        }
    }

    private static boolean isEmptyDirectory(Path directory) {
        try (Stream<Path> children = Files.list(directory)) {
            return children.findAny().isEmpty();
        } catch (IOException e) {
            throw new UncheckedIOException("could not list " + directory, e);
        }
    }

    private static void createDirectories(Path directory) {
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("could not create " + directory, e);
        }
    }
}
