package dev.sendlog.infra;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Sends any signal by running {@code kill}: Java itself can send only SIGTERM and SIGKILL,
 * and stopping PostgreSQL quickly needs SIGINT, pausing a server SIGSTOP and SIGCONT.
 */
final class Signals {
    private static final long KILL_TIMEOUT_SECONDS = 10;

    private Signals() {}

    /** @param signal a name without the SIG prefix: INT, TERM, KILL, STOP, CONT */
    static void send(long pid, String signal) {
        ProcessBuilder builder = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true);
        try {
            Process kill = builder.start();
            String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!kill.waitFor(KILL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
                throw new IllegalStateException("kill -" + signal + " " + pid + " did not finish");
            }
            if (kill.exitValue() != 0) {
                throw new IllegalStateException(
                        "kill -" + signal + " " + pid + " failed (exit " + kill.exitValue() + "): " + output);
            }
        } catch (IOException e) {
            throw new IllegalStateException("could not run kill -" + signal + " " + pid, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending SIG" + signal + " to " + pid, e);
        }
    }
}
