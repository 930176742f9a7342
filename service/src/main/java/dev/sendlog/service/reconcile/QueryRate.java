package dev.sendlog.service.reconcile;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One gateway's status-query rate in this process: at most {@code perSecond} queries start per second, evenly spaced.
 * Separate from the gateway's sends, so that reconciling a backlog of lost receipts never slows sending down. Real time,
 * not the service's clock: it paces calls to a real provider.
 */
final class QueryRate {
    private final long intervalNanos;
    private final ReentrantLock lock = new ReentrantLock();
    private long nextFreeNanos = System.nanoTime();

    QueryRate(int perSecond) {
        if (perSecond < 1) {
            throw new IllegalArgumentException("perSecond must be at least 1, was " + perSecond);
        }
        this.intervalNanos = TimeUnit.SECONDS.toNanos(1) / perSecond;
    }

    /** Waits for this caller's slot. */
    void acquire() throws InterruptedException {
        long wait;
        lock.lock();
        try {
            long now = System.nanoTime();
            long slot = Math.max(now, nextFreeNanos);
            nextFreeNanos = slot + intervalNanos;
            wait = slot - now;
        } finally {
            lock.unlock();
        }
        if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
        }
    }
}
