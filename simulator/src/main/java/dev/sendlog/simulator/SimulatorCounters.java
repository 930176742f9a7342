package dev.sendlog.simulator;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/** The counters behind {@link SimulatorStats}; see there for what each one counts. */
final class SimulatorCounters {
    final LongAdder submits = new LongAdder();
    final LongAdder duplicateSubmits = new LongAdder();
    final LongAdder accepted = new LongAdder();
    final LongAdder transientErrors = new LongAdder();
    final LongAdder permanentErrors = new LongAdder();
    final LongAdder dropped = new LongAdder();
    final LongAdder callbacksSent = new LongAdder();
    final LongAdder callbacksDelivered = new LongAdder();
    final LongAdder callbacksFailed = new LongAdder();
    final LongAdder callbackAttempts = new LongAdder();
    /** Messages whose callbacks were never sent ({@code callbackLossRate}): the provider forgot them. */
    final LongAdder callbacksLost = new LongAdder();
    final LongAdder statusQueries = new LongAdder();
    /** Submits answered 429 because they came above {@code maxPerSecond} (counted in transientErrors as well). */
    final LongAdder throttled = new LongAdder();
    private final AtomicInteger submitsInFlight = new AtomicInteger();
    private final AtomicInteger maxSubmitsInFlight = new AtomicInteger();

    /** A counted submit starts being served (its latency included); pair with {@link #submitEnded}. */
    void submitStarted() {
        int now = submitsInFlight.incrementAndGet();
        maxSubmitsInFlight.accumulateAndGet(now, Math::max);
    }

    void submitEnded() {
        submitsInFlight.decrementAndGet();
    }

    private final AtomicInteger queriesInFlight = new AtomicInteger();
    private final AtomicInteger maxQueriesInFlight = new AtomicInteger();

    /** A status query starts being served (its latency included); pair with {@link #queryEnded}. */
    void queryStarted() {
        int now = queriesInFlight.incrementAndGet();
        maxQueriesInFlight.accumulateAndGet(now, Math::max);
    }

    void queryEnded() {
        queriesInFlight.decrementAndGet();
    }

    SimulatorStats snapshot(long uniqueKeys) {
        return new SimulatorStats(submits.sum(), uniqueKeys, duplicateSubmits.sum(), accepted.sum(),
                transientErrors.sum(), permanentErrors.sum(), dropped.sum(), callbacksSent.sum(),
                callbacksDelivered.sum(), callbacksFailed.sum(), callbackAttempts.sum(), maxSubmitsInFlight.get(),
                statusQueries.sum(), callbacksLost.sum(), throttled.sum(), maxQueriesInFlight.get());
    }
}
