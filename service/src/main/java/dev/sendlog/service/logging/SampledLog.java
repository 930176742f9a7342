package dev.sendlog.service.logging;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;

/**
 * A warning that anyone on the network can cause (an unsigned callback) is written at most once per interval, with
 * how many were not written since the last line: a flood is counted by its metric, not copied into the log.
 */
public final class SampledLog {
    private final Logger log;
    private final InstantSource clock;
    private final Duration every;
    private final AtomicReference<Instant> nextLine = new AtomicReference<>(Instant.MIN);
    private final AtomicLong notLogged = new AtomicLong();

    public SampledLog(Logger log, InstantSource clock, Duration every) {
        this.log = log;
        this.clock = clock;
        this.every = every;
    }

    /** Logs {@code format} with {@code args} and {@code not_logged_since_last=<n>}, or counts it when one was logged lately. */
    public void warn(String format, Object... args) {
        Instant now = clock.instant();
        Instant due = nextLine.get();
        if (now.isBefore(due) || !nextLine.compareAndSet(due, now.plus(every))) {
            notLogged.incrementAndGet();
            return;
        }
        Object[] all = Arrays.copyOf(args, args.length + 1);
        all[args.length] = notLogged.getAndSet(0);
        log.warn(format + " not_logged_since_last={}", all);
    }
}
