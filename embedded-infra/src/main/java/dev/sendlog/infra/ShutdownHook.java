package dev.sendlog.infra;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Stops a child server when the JVM exits without closing it, so that no server outlives its owner. */
final class ShutdownHook {
    private static final Logger LOG = LoggerFactory.getLogger(ShutdownHook.class);

    private final Thread thread;

    private ShutdownHook(Thread thread) {
        this.thread = thread;
    }

    static ShutdownHook register(String name, Runnable action) {
        Thread thread = new Thread(
                () -> {
                    try {
                        action.run();
                    } catch (RuntimeException e) {
                        LOG.error("Shutdown hook {} failed", name, e);
                    }
                },
                name);
        Runtime.getRuntime().addShutdownHook(thread);
        return new ShutdownHook(thread);
    }

    void cancel() {
        try {
            Runtime.getRuntime().removeShutdownHook(thread);
        } catch (IllegalStateException e) {
            // The JVM is already exiting: the hook has run or is running, which is what it is for.
            LOG.debug("Shutdown hook {} not removed: the JVM is exiting", thread.getName(), e);
        }
    }
}
