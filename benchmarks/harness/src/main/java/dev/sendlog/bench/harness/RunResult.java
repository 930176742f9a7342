package dev.sendlog.bench.harness;

import java.util.Locale;

/**
 * What one run of one system measured. Latencies in milliseconds; {@code walBytesPerMessage} and the CPU figures
 * cover the measured messages only (after the warm-up), {@code jitCpuPer1k} being the part of the system's CPU that
 * its JIT compiler threads used; {@code projectedBytesPer100k} is the database size
 * projected to 100,000 messages from {@code storedMessages} (the empty schema plus the growth per message).
 */
record RunResult(
        String system,
        int concurrency,
        int repeat,
        int messages,
        int accepted,
        int delivered,
        long duplicates,
        double acceptedPerSecond,
        double acceptP50Ms,
        double acceptP99Ms,
        double e2ePerSecond,
        double e2eP50Ms,
        double e2eP99Ms,
        double walBytesPerMessage,
        double systemCpuPer1k,
        double jitCpuPer1k,
        double postgresCpuPer1k,
        long emptyBytes,
        long bytesAfter,
        int storedMessages,
        double projectedBytesPer100k) {

    static final String CSV_HEADER = "system,concurrency,repeat,messages,accepted,delivered,duplicates,"
            + "accepted_per_s,accept_p50_ms,accept_p99_ms,e2e_per_s,e2e_p50_ms,e2e_p99_ms,wal_bytes_per_msg,"
            + "system_cpu_s_per_1k,jit_cpu_s_per_1k,postgres_cpu_s_per_1k,db_bytes_empty,db_bytes_after,"
            + "stored_messages,db_bytes_per_100k_projected";

    String csv() {
        return String.format(
                Locale.ROOT,
                "%s,%d,%d,%d,%d,%d,%d,%.1f,%.2f,%.2f,%.1f,%.1f,%.1f,%.0f,%.3f,%.3f,%.3f,%d,%d,%d,%.0f",
                system,
                concurrency,
                repeat,
                messages,
                accepted,
                delivered,
                duplicates,
                acceptedPerSecond,
                acceptP50Ms,
                acceptP99Ms,
                e2ePerSecond,
                e2eP50Ms,
                e2eP99Ms,
                walBytesPerMessage,
                systemCpuPer1k,
                jitCpuPer1k,
                postgresCpuPer1k,
                emptyBytes,
                bytesAfter,
                storedMessages,
                projectedBytesPer100k);
    }

    /** Growth per stored message scaled to 100,000, on top of the empty schema. */
    static double projectTo100k(long emptyBytes, long bytesAfter, int storedMessages) {
        if (storedMessages <= 0) {
            return Double.NaN;
        }
        return emptyBytes + (bytesAfter - emptyBytes) * (100_000.0 / storedMessages);
    }
}
