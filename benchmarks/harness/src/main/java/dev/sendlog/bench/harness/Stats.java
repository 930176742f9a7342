package dev.sendlog.bench.harness;

import java.util.Arrays;

/** The arithmetic of the report: percentiles of one run, the median of the repeats, ratios between systems. */
final class Stats {
    private Stats() {}

    /**
     * The nearest-rank percentile: the smallest value with at least {@code q} of all values at or below it.
     * {@code q} in (0, 1]; 0 for no values. The input need not be sorted and is not changed.
     */
    static long percentile(long[] values, double q) {
        if (q <= 0 || q > 1) {
            throw new IllegalArgumentException("q must be in (0, 1], was " + q);
        }
        if (values.length == 0) {
            return 0;
        }
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }

    /** The median; the mean of the two middle values for an even count; NaN for none. NaNs are left out. */
    static double median(double... values) {
        double[] sorted =
                Arrays.stream(values).filter(v -> !Double.isNaN(v)).sorted().toArray();
        int n = sorted.length;
        if (n == 0) {
            return Double.NaN;
        }
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** {@code sendlog / other}; NaN when either is unknown or the divisor is zero. */
    static double ratio(double sendlog, double other) {
        if (Double.isNaN(sendlog) || Double.isNaN(other) || other == 0) {
            return Double.NaN;
        }
        return sendlog / other;
    }
}
