package dev.sendlog.service.receipts;

import com.codahale.metrics.MetricRegistry;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many callbacks are being stored at once, shared by both intake paths. A callback that finds the bound full
 * waits for a place up to {@code wait}, and is refused (503 with Retry-After) only after that. Refusing at once made a
 * burst above the bound churn: every refusal is a whole signed HTTP exchange on both sides and comes back a moment
 * later, which cost more CPU than storing it (measured with {@code scripts/bench-isolation}).
 *
 * <p>At most as many callbacks wait as can be stored at once; one more is refused at once. A waiting callback holds a
 * request thread, and the client API's requests need those threads too: a provider sending thousands at once must not
 * hold them all.
 */
public final class IntakeBound {
    private final Semaphore places;
    private final int maxWaiting;
    private final long waitNanos;
    private final AtomicInteger waiting = new AtomicInteger();

    /** Registers the gauge {@code callbacks.intake.waiting}: callbacks waiting for a place now. */
    public IntakeBound(int places, Duration wait, MetricRegistry metrics) {
        this.places = new Semaphore(places, true);
        this.maxWaiting = places;
        this.waitNanos = wait.toNanos();
        metrics.gauge("callbacks.intake.waiting", () -> waiting::get);
    }

    /**
     * True when the caller may store a callback (and must {@link #leave()} after); false: refuse it. An interrupted
     * wait (the server is stopping) refuses too, with the interrupt flag kept; the provider sends it again.
     */
    public boolean enter() {
        if (places.tryAcquire()) {
            return true;
        }
        if (waitNanos <= 0) {
            return false;
        }
        if (waiting.incrementAndGet() > maxWaiting) {
            waiting.decrementAndGet();
            return false;
        }
        try {
            return places.tryAcquire(waitNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            waiting.decrementAndGet();
        }
    }

    public void leave() {
        places.release();
    }
}
