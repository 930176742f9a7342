package dev.sendlog.tools.cpu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The one CPU reader of the tools and benchmarks, from Linux's {@code /proc}: the time processes and their threads used
 * ({@code /proc/<pid>/stat}, {@code /proc/<pid>/task/<tid>/stat}: utime + stime, in clock ticks) and how busy the
 * whole machine was ({@code /proc/stat}). Where there is no {@code /proc}, the readings say so (-1, null, empty).
 */
public final class ProcCpu {
    /** USER_HZ: 100 on every Linux the project runs on ({@code getconf CLK_TCK}). */
    public static final double TICKS_PER_SECOND = 100.0;

    private ProcCpu() {}

    /** utime + stime of {@code pid} in ticks, or -1 when the process is gone. */
    public static long ticks(long pid) {
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
    public static long parseTicks(String stat) {
        String[] after = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
        // after[0] is field 3 (state): utime is field 14, stime field 15.
        return Long.parseLong(after[11]) + Long.parseLong(after[12]);
    }

    /** Ticks of each process still there. */
    public static Map<Long, Long> snapshot(Collection<Long> pids) {
        Map<Long, Long> ticks = new HashMap<>();
        for (long pid : pids) {
            long t = ticks(pid);
            if (t >= 0) {
                ticks.put(pid, t);
            }
        }
        return ticks;
    }

    /**
     * Ticks of the threads of {@code pid} still there, summed by thread group: the thread's name ({@code comm}, which
     * the kernel cuts to 15 characters) without its digits, so "C2 CompilerThre" holds every C2 compiler thread and
     * "ForkJoinPool-" every carrier of virtual threads.
     */
    public static Map<String, Long> threadGroups(long pid) {
        Map<String, Long> ticks = new HashMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
                            .replaceAll("[0-9]", "")
                            .trim();
                    ticks.merge(name, parseTicks(stat), Long::sum);
                } catch (IOException e) {
                    // the thread ended between the listing and the read: its ticks are lost to both snapshots alike
                }
            }
        } catch (IOException e) {
            return Map.of();
        }
        return ticks;
    }

    /** Seconds the JIT compiler threads ("C1 CompilerThread" n, "C2 CompilerThread" n) used between two snapshots. */
    public static double jitSeconds(Map<String, Long> before, Map<String, Long> after) {
        long ticks = used(before, after).entrySet().stream()
                .filter(e -> e.getKey().contains("CompilerThre"))
                .mapToLong(Map.Entry::getValue)
                .sum();
        return ticks / TICKS_PER_SECOND;
    }

    /** The thread groups that used the most CPU between two snapshots, as "name s", and their share of the whole. */
    public static String topGroups(Map<String, Long> before, Map<String, Long> after, int top) {
        Map<String, Long> used = used(before, after);
        long total = used.values().stream().mapToLong(Long::longValue).sum();
        StringBuilder line =
                new StringBuilder(String.format(Locale.ROOT, "%.1f CPU s by thread group:", total / TICKS_PER_SECOND));
        used.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .limit(top)
                .forEach(e -> line.append(String.format(
                        Locale.ROOT,
                        " %s %.1f (%.0f%%);",
                        e.getKey(),
                        e.getValue() / TICKS_PER_SECOND,
                        total == 0 ? 0 : 100.0 * e.getValue() / total)));
        return line.toString();
    }

    /** Ticks each thread group used between two snapshots; a group only in {@code after} started in between. */
    private static Map<String, Long> used(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> used = new HashMap<>();
        after.forEach((name, t) -> used.put(name, t - before.getOrDefault(name, 0L)));
        return used;
    }

    /** Seconds used between two snapshots; a process only in {@code after} started in between, from zero. */
    public static double secondsBetween(Map<Long, Long> before, Map<Long, Long> after) {
        long ticks = 0;
        for (Map.Entry<Long, Long> e : after.entrySet()) {
            ticks += e.getValue() - before.getOrDefault(e.getKey(), 0L);
        }
        return ticks / TICKS_PER_SECOND;
    }

    /** {busy, total} ticks over all cores since boot ({@code /proc/stat}); null where there is no {@code /proc/stat}. */
    public static long[] machineBusyAndTotalTicks() {
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

    /**
     * Ticks of every process on the machine, summed by a label: a PostgreSQL process by its title without its client
     * address and state ("postgres: postgres sendlog", "postgres: walwriter"), a Java process as "java" and its pid,
     * anything else by its command name. Shows which process took the machine's cores, the database's included.
     */
    public static Map<String, Long> machineByProcess() {
        Map<String, Long> ticks = new HashMap<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path proc : (Iterable<Path>) procs::iterator) {
                String pid = proc.getFileName().toString();
                if (!pid.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                try {
                    String stat = Files.readString(proc.resolve("stat"));
                    String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    ticks.merge(
                            processLabel(pid, comm, Files.readAllBytes(proc.resolve("cmdline"))),
                            parseTicks(stat),
                            Long::sum);
                } catch (IOException | RuntimeException e) {
                    // the process ended between the listing and the read
                }
            }
        } catch (IOException e) {
            return Map.of();
        }
        return ticks;
    }

    static String processLabel(String pid, String comm, byte[] cmdline) {
        if (comm.equals("java")) {
            return "java " + pid;
        }
        String title = new String(cmdline, java.nio.charset.StandardCharsets.UTF_8)
                .replace('\0', ' ')
                .strip();
        if (!title.startsWith("postgres:")) {
            return comm;
        }
        // "postgres: postgres sendlog 127.0.0.1(40112) idle": keep the user and the database, drop the rest.
        String[] words = title.split("\\s+");
        if (words.length >= 4 && words[3].contains("(")) {
            return words[0] + " " + words[1] + " " + words[2];
        }
        return words.length >= 2 ? words[0] + " " + words[1] : title;
    }
}
