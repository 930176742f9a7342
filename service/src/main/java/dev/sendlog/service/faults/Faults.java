package dev.sendlog.service.faults;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fault injection at the {@link FaultPoint}s. In production nothing is armed and {@link #at} does nothing.
 * A test arms a point for its next N passes: each of them throws {@link InjectedFault}, as if the process
 * had died right there (nothing after the point happens for that message).
 */
public final class Faults {
    public static final Faults NONE = new Faults();

    private final Map<FaultPoint, AtomicInteger> armed = new EnumMap<>(FaultPoint.class);
    private final Map<FaultPoint, AtomicInteger> fired = new EnumMap<>(FaultPoint.class);

    public Faults() {
        for (FaultPoint p : FaultPoint.values()) {
            armed.put(p, new AtomicInteger());
            fired.put(p, new AtomicInteger());
        }
    }

    /** Makes the next {@code times} passes through {@code point} fail. */
    public void arm(FaultPoint point, int times) {
        if (this == NONE) {
            throw new IllegalStateException("Faults.NONE cannot be armed");
        }
        armed.get(point).set(times);
    }

    /** How many times {@code point} has failed. */
    public int fired(FaultPoint point) {
        return fired.get(point).get();
    }

    public void at(FaultPoint point) {
        AtomicInteger left = armed.get(point);
        if (left.get() > 0 && left.getAndDecrement() > 0) {
            fired.get(point).incrementAndGet();
            throw new InjectedFault(point);
        }
    }

    /** The failure an armed fault point throws. */
    public static final class InjectedFault extends RuntimeException {
        public InjectedFault(FaultPoint point) {
            super("injected fault at " + point, null, false, false);
        }
    }
}
