package dev.sendlog.service.receipts;

import com.codahale.metrics.MetricRegistry;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * How many callbacks are being stored at once, shared by both intake paths. A callback that finds the bound full
 * waits for a place up to {@code wait}, and is refused (503 with Retry-After) only after that. Refusing at once made a
 * burst above the bound churn: every refusal is a whole signed HTTP exchange on both sides and comes back a moment
 * later, which cost more CPU than storing it (measured with {@code scripts/bench-isolation}).
 */
public final class IntakeBound {
    private final Semaphore places;
    private final long waitNanos;

    /** Registers the gauge {@code callbacks.intake.waiting}: callbacks waiting for a place now. */
    public IntakeBound(int places, Duration wait, MetricRegistry metrics) {
        this.places = new Semaphore(places, true);
        this.waitNanos = wait.toNanos();
        metrics.gauge("callbacks.intake.waiting", () -> this.places::getQueueLength);
    }

    /** True when the caller may store a callback (and must {@link #leave()} after); false: refuse it. */
    public boolean enter() throws InterruptedException {
        return places.tryAcquire() || (waitNanos > 0 && places.tryAcquire(waitNanos, TimeUnit.NANOSECONDS));
    }

    public void leave() {
        places.release();
    }
}
