package dev.sendlog.service.send;

import java.time.Duration;

/**
 * The line between a claimed job that may still be given back and one whose provider call may have begun. A job passes
 * it just before the call; once it is closed (shutting down) no job passes, and those that did are awaited. So a job is
 * either handed back before any request could reach the provider, or its call is let finish: never handed back as not
 * sent after the provider may have it.
 */
public final class ProviderCallGate {
    private int calls;
    private boolean closed;

    /** Whether the caller may call the provider now; if so it must {@link #exit} after the call. */
    synchronized boolean enter() {
        if (closed) {
            return false;
        }
        calls++;
        return true;
    }

    synchronized void exit() {
        calls--;
        if (calls == 0) {
            notifyAll();
        }
    }

    /** Lets no more calls begin; returns how many are in flight now. */
    public synchronized int close() {
        closed = true;
        return calls;
    }

    /** Waits up to {@code atMost} for the calls in flight to end; returns how many are still in flight. */
    public synchronized int awaitNoCalls(Duration atMost) throws InterruptedException {
        long deadline = System.nanoTime() + atMost.toNanos();
        while (calls > 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return calls;
    }
}
