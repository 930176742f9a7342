package dev.sendlog.infra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops a server that a previous JVM started in the same directory and never stopped (the JVM was
 * killed). Call only while holding the directory's {@link OwnerLock}: then nobody alive owns it.
 */
final class OrphanedServer {
    private static final Logger LOG = LoggerFactory.getLogger(OrphanedServer.class);
    private static final Duration KILL_WAIT = Duration.ofSeconds(5);

    private OrphanedServer() {}

    /**
     * @param pidFile      the server's pid file (first line: the pid)
     * @param commandMarker a string its command line contains, to tell it from an unrelated process that reused the pid
     * @param stopSignal   the signal that makes it shut down cleanly
     */
    static void stopIfRunning(Path pidFile, String commandMarker, String stopSignal, Duration stopTimeout) {
        if (!Files.exists(pidFile)) {
            return;
        }
        long pid = readPid(pidFile);
        if (pid <= 0 || !Processes.isRunning(pid)) {
            LOG.info("Removing stale pid file {} (pid {} is not running)", pidFile, pid);
            delete(pidFile);
            return;
        }
        String command = Processes.commandLine(pid).orElse("");
        if (!command.contains(commandMarker)) {
            LOG.info(
                    "Removing stale pid file {}: pid {} now belongs to an unrelated process ({})",
                    pidFile,
                    pid,
                    command);
            delete(pidFile);
            return;
        }
        LOG.warn(
                "A {} left running by a previous run that was not shut down (pid {}: {}); stopping it with SIG{}",
                commandMarker,
                pid,
                command,
                stopSignal);
        Signals.send(pid, stopSignal);
        if (!Poll.until(stopTimeout, () -> !Processes.isRunning(pid))) {
            LOG.warn("{} (pid {}) did not stop within {} ms; killing it", commandMarker, pid, stopTimeout.toMillis());
            Signals.send(pid, "KILL");
            if (!Poll.until(KILL_WAIT, () -> !Processes.isRunning(pid))) {
                throw new IllegalStateException("could not stop the orphaned " + commandMarker + " (pid " + pid + ")");
            }
        }
        // A killed server leaves its pid file; a zombie with that pid would make a new server think it still runs.
        delete(pidFile);
    }

    private static long readPid(Path pidFile) {
        try {
            List<String> lines = Files.readAllLines(pidFile, StandardCharsets.US_ASCII);
            return lines.isEmpty() ? -1 : Long.parseLong(lines.get(0).trim());
        } catch (NumberFormatException e) {
            LOG.warn("Pid file {} does not start with a pid: {}", pidFile, e.getMessage());
            return -1;
        } catch (IOException e) {
            throw new UncheckedIOException("could not read " + pidFile, e);
        }
    }

    private static void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete " + file, e);
        }
    }
}
