package dev.sendlog.service.support;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;

/** A clock tests move by hand, so timers fire without waiting. */
public final class MutableClock implements InstantSource {
    private final AtomicReference<Instant> now;

    public MutableClock(Instant start) {
        this.now = new AtomicReference<>(start);
    }

    public static MutableClock startingNow() {
        return new MutableClock(Instant.now());
    }

    @Override
    public Instant instant() {
        return now.get();
    }

    public void advance(Duration by) {
        now.updateAndGet(t -> t.plus(by));
    }

    public void set(Instant to) {
        now.set(to);
    }
}
