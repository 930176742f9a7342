package dev.sendlog.service.lifecycle;

import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * SIGTERM hands the work over before the JVM's own handling of the signal begins. The JVM answers SIGTERM by running
 * its shutdown hooks, and Jetty's hook closes the listening sockets at once: a client would meet a refused connection
 * instead of a 503 telling it to come back, and the pools would be closed by the same stop that releases the leases.
 * So the hand-over runs first, then the JVM's handler (exit status 143, the hooks: HTTP server, managed objects, pools).
 */
public final class Sigterm {
    private static final Logger LOG = LoggerFactory.getLogger(Sigterm.class);
    private static final int EXIT_ON_SIGTERM = 128 + 15;

    private Sigterm() {}

    /**
     * Only for a process of its own (the server commands), never in a test's JVM. {@code readinessDrain}: how long, from
     * intake closed, the process keeps answering 503 before the JVM's stop closes its ports.
     */
    public static void handOverFirst(ShutdownSequence sequence, Duration readinessDrain) {
        Signal term = new Signal("TERM");
        SignalHandler[] previous = new SignalHandler[1];
        previous[0] = Signal.handle(term, signal -> {
            LOG.info("SIGTERM: handing work over before stopping");
            sequence.handOver(); // a second SIGTERM during the hand-over finds it begun and goes on to stop
            sequence.drainReadiness(readinessDrain);
            SignalHandler jvm = previous[0];
            if (jvm == SignalHandler.SIG_DFL || jvm == SignalHandler.SIG_IGN || jvm == null) {
                System.exit(EXIT_ON_SIGTERM);
            } else {
                jvm.handle(signal);
            }
        });
    }
}
