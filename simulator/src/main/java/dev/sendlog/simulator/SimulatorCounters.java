package dev.sendlog.simulator;

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

    SimulatorStats snapshot(long uniqueKeys) {
        return new SimulatorStats(submits.sum(), uniqueKeys, duplicateSubmits.sum(), accepted.sum(),
                transientErrors.sum(), permanentErrors.sum(), dropped.sum(), callbacksSent.sum(),
                callbacksDelivered.sum(), callbacksFailed.sum(), callbackAttempts.sum());
    }
}
