package dev.sendlog.infra;

import java.nio.file.Path;
import java.time.Duration;

/** Waits until a freshly started child server answers, or explains with its log why it did not. */
final class Readiness {
    /** Throws while the server is not ready yet. */
    @FunctionalInterface
    interface Probe {
        void check() throws Exception;
    }

    private Readiness() {}

    static void await(String server, Process process, Duration timeout, Path logFile, Probe probe) {
        Poll poll = Poll.within(timeout);
        Exception lastFailure;
        do {
            if (!process.isAlive()) {
                throw new ServerStartException(server + " exited with code " + process.exitValue()
                        + " before it answered; " + LogTail.of(logFile));
            }
            try {
                probe.check();
                return;
            } catch (Exception e) {
                lastFailure = e;
            }
        } while (poll.pauseBeforeNextTry());
        throw new ServerStartException(
                server + " (pid " + process.pid() + ") did not answer within " + timeout.toMillis() + " ms; "
                        + LogTail.of(logFile),
                lastFailure);
    }
}
