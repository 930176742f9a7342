package dev.sendlog.simulator;

import java.util.List;
import java.util.Random;

/** The dice of one configuration: with a seed, the sequence of rolls repeats from run to run. */
final class SimulatorRandom {
    // java.util.Random is thread-safe; submits roll from many threads at once.
    private final Random random;

    SimulatorRandom(Long seed) {
        random = seed == null ? new Random() : new Random(seed);
    }

    /** True with probability {@code rate}: never for 0, always for 1. */
    boolean roll(double rate) {
        return random.nextDouble() < rate;
    }

    <T> T pick(List<T> choices) {
        return choices.get(random.nextInt(choices.size()));
    }

    /** Uniform in [min, max], both inclusive. */
    long between(long min, long max) {
        return min + (long) (random.nextDouble() * (max - min + 1));
    }
}
