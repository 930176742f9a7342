package dev.sendlog.tools.loadtest;

import java.util.Arrays;

/** Latencies of one run, kept exactly (a run is at most a few million requests). */
final class LatencyRecorder {
    private long[] nanos = new long[1 << 16];
    private int size;

    synchronized void record(long latencyNanos) {
        if (size == nanos.length) {
            nanos = Arrays.copyOf(nanos, size * 2);
        }
        nanos[size++] = latencyNanos;
    }

    synchronized Percentiles percentiles() {
        long[] sorted = Arrays.copyOf(nanos, size);
        Arrays.sort(sorted);
        return new Percentiles(size, at(sorted, 0.50), at(sorted, 0.99), size == 0 ? 0 : sorted[size - 1]);
    }

    private static long at(long[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[(int) Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
    }

    /** Count and latencies in nanoseconds. */
    record Percentiles(int count, long p50, long p99, long max) {
        double p50Ms() {
            return p50 / 1e6;
        }

        double p99Ms() {
            return p99 / 1e6;
        }

        double maxMs() {
            return max / 1e6;
        }
    }
}
