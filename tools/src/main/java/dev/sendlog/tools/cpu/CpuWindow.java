package dev.sendlog.tools.cpu;

import java.util.Locale;
import java.util.Map;

/**
 * What one process and the whole machine used over a span, from {@link ProcCpu}: the process's cores (utime + stime
 * over the wall time), the thread groups that used most of it, and the share of the machine's cores that were busy.
 * and the machine's busiest processes (the database's backends by database). A benchmark that reports a latency under load prints it beside, so that a reader can tell a queue in the code from
 * a machine with no core left.
 */
public record CpuWindow(
        long nanos,
        long pid,
        long processTicks,
        Map<String, Long> groups,
        long[] machine,
        Map<String, Long> processes) {
    public static CpuWindow take(long pid) {
        return new CpuWindow(
                System.nanoTime(),
                pid,
                ProcCpu.ticks(pid),
                ProcCpu.threadGroups(pid),
                ProcCpu.machineBusyAndTotalTicks(),
                ProcCpu.machineByProcess());
    }

    /** The process's CPU seconds per second of wall time from this sample to {@code to}; -1 where unreadable. */
    public double cores(CpuWindow to) {
        double seconds = (to.nanos - nanos) / 1e9;
        if (processTicks < 0 || to.processTicks < 0 || seconds <= 0) {
            return -1;
        }
        return (to.processTicks - processTicks) / ProcCpu.TICKS_PER_SECOND / seconds;
    }

    /** "the process used N cores (its JIT M); the machine's cores P% busy; top groups", from this sample to {@code to}. */
    public String until(CpuWindow to, int topGroups) {
        double cores = cores(to);
        if (cores < 0) {
            return "CPU not readable on this system";
        }
        double seconds = (to.nanos - nanos) / 1e9;
        double jit = ProcCpu.jitSeconds(groups, to.groups) / seconds;
        String machineBusy = machine == null || to.machine == null || to.machine[1] == machine[1]
                ? "not readable"
                : String.format(
                        Locale.ROOT, "%.0f%%", 100.0 * (to.machine[0] - machine[0]) / (to.machine[1] - machine[1]));
        return String.format(
                        Locale.ROOT,
                        "the service used %.2f cores (its JIT compilers %.2f), the machine's cores were %s busy; ",
                        cores,
                        jit,
                        machineBusy)
                + ProcCpu.topGroups(groups, to.groups, topGroups)
                + " the machine's "
                + ProcCpu.topGroups(processes, to.processes, topGroups).replace("thread group", "process");
    }
}
