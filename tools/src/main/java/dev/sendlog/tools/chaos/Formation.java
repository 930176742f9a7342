package dev.sendlog.tools.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A pg_auto_failover formation for the HA chaos run (issue 30): a monitor and {@code nodes} PostgreSQL servers on this
 * machine, driven through {@code scripts/ha}, the one place that knows pg_autoctl. Node {@code i} always listens on
 * the same port (a replacement takes the dead node's port with a fresh folder), so the service's multi-host URL stays
 * the same through every failover, as a deployment's host names would.
 */
final class Formation implements AutoCloseable {
    private static final Path SCRIPT = Path.of("scripts", "ha");
    private static final long STEP_TIMEOUT_MINUTES = 10;

    private final Path dir;
    private final Path log;

    private Formation(Path dir, Path log) {
        this.dir = dir;
        this.log = log;
    }

    /** Whether pg_auto_failover is installed here (the script exits 3 when it is not). */
    static boolean available() {
        return Files.isExecutable(Path.of("/usr/bin/pg_autoctl"))
                || System.getenv("PATH") != null
                        && java.util.Arrays.stream(System.getenv("PATH").split(":"))
                                .anyMatch(p -> Files.isExecutable(Path.of(p, "pg_autoctl")));
    }

    /** Creates the formation in {@code dir} (monitor on {@code port}, node i on port + i) and waits until it settles. */
    static Formation up(Path dir, int port, int nodes, boolean async, Path log)
            throws IOException, InterruptedException {
        Formation f = new Formation(dir, log);
        List<String> args = new ArrayList<>(List.of(
                "up", dir.toString(), "--port", Integer.toString(port), "--nodes", Integer.toString(nodes), "--quick"));
        if (async) {
            args.add("--async");
        }
        f.run(args);
        return f;
    }

    /** The multi-host JDBC URL naming every node, {@code targetServerType=primary}. */
    String jdbcUrl(String database) throws IOException, InterruptedException {
        return run(List.of("url", dir.toString(), database)).strip();
    }

    /**
     * SIGKILLs the primary's keeper and server and deletes its data folder (the machine and its disk are gone), with
     * the primary's WAL senders stopped for {@code laggingMs} before (standbys that are behind, as a slow network
     * leaves them): a synchronous formation acknowledges nothing meanwhile, an asynchronous one does, and loses it.
     * Returns the node killed.
     */
    int killPrimary(long laggingMs) throws IOException, InterruptedException {
        return Integer.parseInt(run(List.of("kill-primary", dir.toString(), "--lagging-ms", Long.toString(laggingMs)))
                .strip());
    }

    /** The primary's node number, or 0 while there is none. */
    int primary() throws IOException, InterruptedException {
        String p = run(List.of("primary", dir.toString())).strip();
        return p.isEmpty() ? 0 : Integer.parseInt(p);
    }

    /** Waits for the monitor's new primary, then puts a fresh standby where node {@code i} was, caught up. */
    void replace(int node) throws IOException, InterruptedException {
        run(List.of("replace", dir.toString(), Integer.toString(node)));
    }

    /** Stops every server and keeper and removes the folder. */
    @Override
    public void close() throws IOException, InterruptedException {
        run(List.of("down", dir.toString()));
    }

    /** Runs the script, its errors appended to the log; returns what it printed; fails on a non-zero exit. */
    private String run(List<String> args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(SCRIPT.toString());
        command.addAll(args);
        Path out = Files.createTempFile(log.getParent(), "ha-", ".out");
        try {
            Process p = new ProcessBuilder(command)
                    .redirectOutput(out.toFile())
                    .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            if (!p.waitFor(STEP_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IOException("scripts/ha " + args + " did not end within " + STEP_TIMEOUT_MINUTES + " min");
            }
            String printed = Files.readString(out, StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new IOException("scripts/ha " + args + " failed (exit " + p.exitValue() + "); see " + log);
            }
            return printed;
        } finally {
            Files.deleteIfExists(out);
        }
    }
}
