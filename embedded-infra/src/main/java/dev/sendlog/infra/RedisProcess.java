package dev.sendlog.infra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A redis-server run in the foreground as a child of this JVM (PID 1 here does not reap daemonised
 * processes), bound to 127.0.0.1, logging to {@code redis.log} in its data folder. Tests use it to
 * kill, pause and restart Redis; the service uses it when no Redis is reachable.
 */
public final class RedisProcess implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RedisProcess.class);

    private static final String HOST = "127.0.0.1";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
    private static final int START_ATTEMPTS_ON_CHOSEN_PORT = 3;

    private final RedisOptions options;
    private final Path dataDir;
    private final Path executable;
    private final RedisEndpoint endpoint;
    private final OwnerLock ownerLock;
    private final ShutdownHook shutdownHook;
    private Process process;
    private boolean paused;
    private boolean closed;

    private RedisProcess(
            RedisOptions options,
            Path dataDir,
            Path executable,
            RedisEndpoint endpoint,
            OwnerLock ownerLock,
            Process process) {
        this.options = options;
        this.dataDir = dataDir;
        this.executable = executable;
        this.endpoint = endpoint;
        this.ownerLock = ownerLock;
        this.process = process;
        this.shutdownHook = ShutdownHook.register("stop-redis-" + endpoint.port(), this::stopServer);
    }

    public static RedisProcess start(RedisOptions options) {
        Path dataDir = options.dataDir().toAbsolutePath();
        try {
            Files.createDirectories(dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException("could not create " + dataDir, e);
        }
        OwnerLock ownerLock = OwnerLock.acquire(dataDir.resolve("owner.lock"), "Redis folder " + dataDir);
        try {
            OrphanedServer.stopIfRunning(pidFile(dataDir), "redis-server", "TERM", STOP_TIMEOUT);
            Path executable = options.executable().orElseGet(RedisBinary::locate);
            PortChoice portChoice = options.portChoice();
            for (int attempt = 1; ; attempt++) {
                RedisEndpoint endpoint = new RedisEndpoint(HOST, portChoice.resolve());
                try {
                    Process process = launch(options, dataDir, executable, endpoint);
                    return new RedisProcess(options, dataDir, executable, endpoint, ownerLock, process);
                } catch (ServerStartException e) {
                    // A port we picked as free can be taken before redis-server binds it; then pick another.
                    if (!e.getMessage().contains("Address already in use")
                            || !portChoice.mayChange()
                            || attempt == START_ATTEMPTS_ON_CHOSEN_PORT) {
                        throw e;
                    }
                    LOG.warn("Port {} was taken before redis-server could bind it; trying another", endpoint.port(), e);
                }
            }
        } catch (RuntimeException e) {
            ownerLock.close();
            throw e;
        }
    }

    private static Process launch(RedisOptions options, Path dataDir, Path executable, RedisEndpoint endpoint) {
        Path logFile = logFile(dataDir);
        ProcessBuilder builder = new ProcessBuilder(command(options, dataDir, executable, endpoint.port()))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        long startNanos = System.nanoTime();
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new ServerStartException("could not run " + builder.command(), e);
        }
        try {
            RedisPing.await(endpoint, process, START_TIMEOUT, logFile);
        } catch (RuntimeException e) {
            process.destroyForcibly();
            waitForExit(process);
            throw e;
        }
        LOG.info(
                "redis-server ready on {} after {} ms (pid {}, binary {}, folder {}, persistence {}, maxmemory {})",
                endpoint.uri(),
                (System.nanoTime() - startNanos) / 1_000_000,
                process.pid(),
                executable,
                dataDir,
                options.persistence() ? "on" : "off",
                options.maxMemoryBytes() == 0 ? "unlimited" : options.maxMemoryBytes() + " bytes");
        return process;
    }

    private static List<String> command(RedisOptions options, Path dataDir, Path executable, int port) {
        List<String> command = new ArrayList<>(List.of(
                executable.toString(),
                "--port",
                Integer.toString(port),
                "--bind",
                HOST,
                "--daemonize",
                "no",
                "--dir",
                dataDir.toString(),
                "--pidfile",
                pidFile(dataDir).toString()));
        if (options.persistence()) {
            command.addAll(List.of("--appendonly", "yes"));
        } else {
            command.addAll(List.of("--save", "", "--appendonly", "no"));
        }
        if (options.clusterNode()) {
            command.addAll(List.of(
                    "--cluster-enabled",
                    "yes",
                    "--cluster-config-file",
                    "nodes.conf",
                    "--cluster-node-timeout",
                    "5000"));
        }
        if (options.maxMemoryBytes() > 0) {
            command.addAll(List.of(
                    "--maxmemory", Long.toString(options.maxMemoryBytes()), "--maxmemory-policy", "noeviction"));
        }
        return command;
    }

    private static Path pidFile(Path dataDir) {
        return dataDir.resolve("redis.pid");
    }

    private static Path logFile(Path dataDir) {
        return dataDir.resolve("redis.log");
    }

    public RedisEndpoint endpoint() {
        return endpoint;
    }

    public synchronized long pid() {
        return process.pid();
    }

    public synchronized boolean isRunning() {
        return process.isAlive();
    }

    public Path logFile() {
        return logFile(dataDir);
    }

    /** SIGTERM, and wait until it has exited (SIGKILL if it takes too long). */
    public synchronized void stop() {
        stopServer();
    }

    /** SIGKILL, like {@code kill -9}: no shutdown work at all. */
    public synchronized void kill() {
        if (process.isAlive()) {
            process.destroyForcibly();
            waitForExit(process);
            LOG.info("redis-server on port {} killed (pid {})", endpoint.port(), process.pid());
        }
        paused = false;
    }

    /** SIGSTOP: the server keeps its connections but answers nothing until {@link #resume()}. */
    public synchronized void pause() {
        requireRunning("pause");
        Signals.send(process.pid(), "STOP");
        paused = true;
        LOG.info("redis-server on port {} paused (pid {})", endpoint.port(), process.pid());
    }

    /** SIGCONT. */
    public synchronized void resume() {
        requireRunning("resume");
        Signals.send(process.pid(), "CONT");
        paused = false;
        LOG.info("redis-server on port {} resumed (pid {})", endpoint.port(), process.pid());
    }

    /** Stops it if it runs and starts it again on the same port; without persistence its data is gone. */
    public synchronized void restart() {
        if (closed) {
            throw new IllegalStateException("redis-server on port " + endpoint.port() + " is closed");
        }
        stopServer();
        process = launch(options, dataDir, executable, endpoint);
    }

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
            paused = false;
            return;
        }
        if (paused) {
            // A stopped process keeps SIGTERM pending until it is continued.
            Signals.send(process.pid(), "CONT");
            paused = false;
        }
        process.destroy();
        if (!waitForExit(process)) {
            LOG.warn(
                    "redis-server (pid {}) did not stop within {} s; killing it",
                    process.pid(),
                    STOP_TIMEOUT.toSeconds());
            process.destroyForcibly();
            waitForExit(process);
        }
        LOG.info("redis-server on port {} stopped (pid {})", endpoint.port(), process.pid());
    }

    private void requireRunning(String action) {
        if (!process.isAlive()) {
            throw new IllegalStateException(
                    "cannot " + action + " redis-server on port " + endpoint.port() + ": it is not running");
        }
    }

    private static boolean waitForExit(Process process) {
        try {
            return process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(
                    "interrupted while waiting for redis-server (pid " + process.pid() + ") to stop", e);
        }
    }
}
