package dev.sendlog.service.badinput;

import java.util.SplittableRandom;

/**
 * The seed of a fuzz run: given with {@code -Dsendlog.fuzz.seed=<n>} to replay a failure, otherwise fresh each run.
 * It is printed either way. Case {@code i} draws from its own random derived from the seed and {@code i}, so a case
 * does not depend on which thread ran it or on what ran before.
 */
final class FuzzSeed {
    static final String PROPERTY = "sendlog.fuzz.seed";

    private FuzzSeed() {}

    static long of(String run) {
        String given = System.getProperty(PROPERTY);
        long seed = given == null || given.isBlank() ? new SplittableRandom().nextLong() : Long.parseLong(given.trim());
        System.out.println("FUZZ " + run + " seed=" + seed + " (replay: -D" + PROPERTY + "=" + seed + ")");
        return seed;
    }

    static SplittableRandom forCase(long seed, long caseNumber) {
        return new SplittableRandom(seed ^ (caseNumber * 0x9E3779B97F4A7C15L));
    }
}
