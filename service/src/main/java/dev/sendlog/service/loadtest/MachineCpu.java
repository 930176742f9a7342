package dev.sendlog.service.loadtest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The machine's CPU ticks from {@code /proc/stat} (Linux), for how busy the machine was during a run. */
final class MachineCpu {
    private MachineCpu() {}

    /** {busy, total} ticks over all cores since boot; null where there is no {@code /proc/stat}. */
    static long[] busyAndTotalTicks() {
        try {
            String first = Files.readAllLines(Path.of("/proc/stat")).getFirst();
            String[] f = first.trim().split("\\s+");
            // cpu user nice system idle iowait irq softirq steal ...
            long total = 0;
            for (int i = 1; i < Math.min(f.length, 9); i++) {
                total += Long.parseLong(f[i]);
            }
            long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
            return new long[] {total - idle, total};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
