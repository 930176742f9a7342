package dev.sendlog.simulator.smpp;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Everything {@code clear()} resets: the recorded submits, the id counter and the counters. A clear swaps in a
 * fresh instance, so receipts still in flight count in the old one and leave the new one clean.
 */
final class SmscState {
    /** Recorded submits beyond this many drop the oldest, so a long benchmark cannot fill the heap. */
    static final int MAX_RECORDED = 1_000_000;

    private final AtomicLong nextId;
    private final AtomicLong queued = new AtomicLong();
    private final ArrayDeque<SmscSubmit> submits = new ArrayDeque<>();

    final LongAdder received = new LongAdder();
    final LongAdder accepted = new LongAdder();
    final LongAdder throttled = new LongAdder();
    final LongAdder queueFull = new LongAdder();
    final LongAdder invalid = new LongAdder();
    final LongAdder responsesLost = new LongAdder();
    final LongAdder receiptsSent = new LongAdder();
    final LongAdder receiptsAcked = new LongAdder();
    final LongAdder receiptsRefused = new LongAdder();
    final LongAdder receiptsPending = new LongAdder();
    final LongAdder bindsAccepted = new LongAdder();
    final LongAdder bindsRefused = new LongAdder();
    final LongAdder enquireLinks = new LongAdder();

    SmscState(long firstId) {
        nextId = new AtomicLong(firstId);
    }

    long nextId() {
        return nextId.getAndIncrement();
    }

    /** The running number of submits that reached the queue, for {@code queueFullEvery}. */
    long nextQueued() {
        return queued.incrementAndGet();
    }

    void record(SmscSubmit submit) {
        synchronized (submits) {
            if (submits.size() >= MAX_RECORDED) {
                submits.removeFirst();
            }
            submits.addLast(submit);
        }
    }

    List<SmscSubmit> submits() {
        synchronized (submits) {
            return List.copyOf(submits);
        }
    }

    SmscStats stats(int sessionsBound) {
        return new SmscStats(
                received.sum(),
                accepted.sum(),
                throttled.sum(),
                queueFull.sum(),
                invalid.sum(),
                responsesLost.sum(),
                receiptsSent.sum(),
                receiptsAcked.sum(),
                receiptsRefused.sum(),
                receiptsPending.sum(),
                bindsAccepted.sum(),
                bindsRefused.sum(),
                sessionsBound,
                enquireLinks.sum());
    }
}
