package dev.sendlog.bench.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/** CPU time of processes from {@code /proc/<pid>/stat}: utime + stime, in clock ticks. */
final class ProcCpu {
    /** USER_HZ: 100 on every Linux the project runs on ({@code getconf CLK_TCK}). */
    static final double TICKS_PER_SECOND = 100.0;

    private ProcCpu() {
    }

    /** utime + stime of {@code pid} in ticks, or -1 when the process is gone. */
    static long ticks(long pid) {
        try {
            return parseTicks(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
        } catch (IOException e) {
            return -1;
        }
    }

    /**
     * Fields 14 and 15 of a stat line. The command (field 2) is in parentheses and may hold spaces or
     * parentheses itself, so the fields are counted from the last ')'.
     */
    static long parseTicks(String stat) {
        String[] after = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
        // after[0] is field 3 (state): utime is field 14, stime field 15.
        return Long.parseLong(after[11]) + Long.parseLong(after[12]);
    }

    /** Ticks of each process still there. */
    static Map<Long, Long> snapshot(Collection<Long> pids) {
        Map<Long, Long> ticks = new HashMap<>();
        for (long pid : pids) {
            long t = ticks(pid);
            if (t >= 0) {
                ticks.put(pid, t);
            }
        }
        return ticks;
    }

    /** Seconds used between two snapshots; a process only in {@code after} started in between, from zero. */
    static double secondsBetween(Map<Long, Long> before, Map<Long, Long> after) {
        long ticks = 0;
        for (Map.Entry<Long, Long> e : after.entrySet()) {
            ticks += e.getValue() - before.getOrDefault(e.getKey(), 0L);
        }
        return ticks / TICKS_PER_SECOND;
    }
}
