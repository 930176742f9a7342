package dev.sendlog.service.publish;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Wakes this process's pollers when this process commits new work: an accept's messages, an append holding a REDRIVEN
 * event (a retry, a re-drive, a scheduled send come due). In a process that also runs the API, a poller that found its
 * tail empty therefore waits for such a commit or {@code pipeline.localIdlePollMs}, whichever comes first, instead of
 * reading the tail every {@code idlePollMs}: work accepted here is published at once rather than after up to
 * {@code idlePollMs}, and an idle process reads its tail a few times a second instead of fifty.
 *
 * <p>The slower read stays, for work no local commit announces: another process's accepts on shards this one owns,
 * another process's timers. That work waits at most {@code localIdlePollMs} (100 ms as shipped) after an empty read; an
 * operator running several API processes beside their pollers sets it to {@code idlePollMs} to keep the old bound. A
 * wake that comes while the poller reads is kept (its permit waits), so nothing committed between a read and the next
 * wait is missed; several commits during one read cost one more read.
 */
public final class LocalWork {
    private final List<Semaphore> waiters = new CopyOnWriteArrayList<>();
    private final Counter woken;

    public LocalWork(MetricRegistry metrics) {
        this.woken = metrics.counter("poller.local.woken");
    }

    /** Called after a commit that wrote new work: wakes every poller waiting here (or its next wait). */
    public void committed() {
        for (Semaphore waiter : waiters) {
            if (waiter.availablePermits() == 0) {
                waiter.release();
            }
        }
    }

    /** A poller's own wait; each poller has one, so that one commit wakes them all. */
    public Waiter waiter() {
        Semaphore signals = new Semaphore(0);
        waiters.add(signals);
        return ms -> {
            if (signals.tryAcquire(ms, TimeUnit.MILLISECONDS)) {
                signals.drainPermits();
                woken.inc();
            }
        };
    }

    /** Waits for a local commit of new work, or {@code ms}. */
    @FunctionalInterface
    public interface Waiter {
        void await(long ms) throws InterruptedException;
    }
}
