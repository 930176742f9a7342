package dev.sendlog.tools.cpu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * How long work waited for a CPU over a span, from Linux's own accounting: the CPU pressure (the share of the time at
 * least one task was runnable but not running, {@code /proc/pressure/cpu}) and, for the threads of one process whose
 * name starts with a prefix, the time they spent runnable on a run queue per time slice they ran
 * ({@code /proc/<pid>/task/<tid>/schedstat}). A latency that grows with these under load is the machine's, not a
 * queue's in the code. Reads nothing (and says so) where those files do not exist.
 */
public final class CpuWaits {
    public record Sample(long nanos, long pressureMicros, long threadWaitNanos, long threadSlices) {}

    private CpuWaits() {}

    public static Sample take(long pid, String threadPrefix) {
        long waited = 0;
        long slices = 0;
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks.toList()) {
                try {
                    if (!Files.readString(task.resolve("comm")).strip().startsWith(threadPrefix)) {
                        continue;
                    }
                    String[] f =
                            Files.readString(task.resolve("schedstat")).strip().split("\\s+");
                    waited += Long.parseLong(f[1]);
                    slices += Long.parseLong(f[2]);
                } catch (IOException | RuntimeException e) {
                    // the thread ended meanwhile
                }
            }
        } catch (IOException e) {
            return new Sample(System.nanoTime(), -1, -1, -1);
        }
        return new Sample(System.nanoTime(), pressure(), waited, slices);
    }

    /** The "some" total of /proc/pressure/cpu in microseconds, or -1 where the kernel does not keep it. */
    private static long pressure() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/pressure/cpu"))) {
                if (line.startsWith("some")) {
                    return Long.parseLong(
                            line.substring(line.indexOf("total=") + 6).strip());
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    public static String between(Sample from, Sample to, String threadName) {
        if (from.pressureMicros() < 0 || to.pressureMicros() < 0) {
            return "CPU waits not readable on this system";
        }
        double span = (to.nanos() - from.nanos()) / 1e3;
        double pressure = 100.0 * (to.pressureMicros() - from.pressureMicros()) / span;
        long slices = to.threadSlices() - from.threadSlices();
        double perSlice = slices <= 0 ? 0 : (to.threadWaitNanos() - from.threadWaitNanos()) / 1e6 / slices;
        return String.format(
                Locale.ROOT,
                "some task waiting for a CPU %.0f%% of the time; %s waited %.2f ms for a CPU per "
                        + "time slice on average (%d slices)",
                pressure,
                threadName,
                perSlice,
                slices);
    }
}
