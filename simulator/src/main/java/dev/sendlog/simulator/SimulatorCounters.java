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
    /** Counted submits being served now (their latency included), and the most ever at once. */
    final InFlight submitsInFlight = new InFlight();
    /** Status queries being served now (their latency included), and the most ever at once. */
    final InFlight queriesInFlight = new InFlight();

    /** Requests being served at the same time, and the most there ever were; start and end each one once. */
    static final class InFlight {
        private final AtomicInteger now = new AtomicInteger();
        private final AtomicInteger most = new AtomicInteger();

        void started() {
            most.accumulateAndGet(now.incrementAndGet(), Math::max);
        }

        void ended() {
            now.decrementAndGet();
        }

        int most() {
            return most.get();
        }
    }

    SimulatorStats snapshot(long uniqueKeys) {
        return new SimulatorStats(
                submits.sum(),
                uniqueKeys,
                duplicateSubmits.sum(),
                accepted.sum(),
                transientErrors.sum(),
                permanentErrors.sum(),
                dropped.sum(),
                callbacksSent.sum(),
                callbacksDelivered.sum(),
                callbacksFailed.sum(),
                callbackAttempts.sum(),
                submitsInFlight.most(),
                statusQueries.sum(),
                callbacksLost.sum(),
                throttled.sum(),
                queriesInFlight.most());
    }
}
