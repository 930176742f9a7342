package dev.sendlog.tools.cpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** The one CPU reader: processes, thread groups and the whole machine, as {@code /proc} gives them. */
class ProcCpuTest {
    @Test
    void procStatTicksAreUtimePlusStimeEvenWithParenthesesInTheName() {
        String stat = "4242 (java (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 1234 567 0 0 20 0 40 0 1000 0 0";
        assertThat(ProcCpu.parseTicks(stat)).isEqualTo(1234 + 567);
        assertThat(ProcCpu.secondsBetween(Map.of(1L, 100L, 2L, 50L), Map.of(1L, 250L, 3L, 30L)))
                .isEqualTo(1.8);
    }

    @Test
    void threadsAreGroupedByNameWithoutDigitsAndTheJitIsItsCompilerThreads() {
        Map<String, Long> before = Map.of("C CompilerThre", 100L, "pool--thread-", 40L);
        Map<String, Long> after = Map.of("C CompilerThre", 160L, "pool--thread-", 140L, "ForkJoinPool--", 20L);
        assertThat(ProcCpu.jitSeconds(before, after)).isEqualTo(0.6);
        assertThat(ProcCpu.topGroups(before, after, 2))
                .isEqualTo("1.8 CPU s by thread group: pool--thread- 1.0 (56%); C CompilerThre 0.6 (33%);");
    }

    @Test
    void thisProcessAndItsCompilerThreadsHaveUsedSomeCpu() {
        Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "only where /proc exists (Linux)");
        assertThat(ProcCpu.ticks(ProcessHandle.current().pid())).isPositive();
        assertThat(ProcCpu.ticks(Long.MAX_VALUE))
                .as("a process that is not there")
                .isEqualTo(-1);
        assertThat(ProcCpu.threadGroups(ProcessHandle.current().pid())).containsKey("C CompilerThre");
    }

    @Test
    void machineBusyTicksAreWithinTheTotalAndBothCountUp() {
        Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/stat")), "only where /proc/stat exists (Linux)");
        long[] first = ProcCpu.machineBusyAndTotalTicks();
        assertThat(first).hasSize(2);
        assertThat(first[0]).isPositive().isLessThanOrEqualTo(first[1]);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            long[] later = ProcCpu.machineBusyAndTotalTicks();
            assertThat(later[1]).isGreaterThan(first[1]);
            assertThat(later[0]).isGreaterThanOrEqualTo(first[0]).isLessThanOrEqualTo(later[1]);
        });
    }

    @Test
    void aWindowCountsTheCpuThisProcessBurnsInIt() {
        Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/stat")), "only where /proc exists (Linux)");
        long pid = ProcessHandle.current().pid();
        CpuWindow from = CpuWindow.take(pid);
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long cpuFrom = threads.getCurrentThreadCpuTime();
        long spins = 0;
        // Burn 300 ms of this thread's CPU: the window must see at least most of it (the kernel counts in 10 ms ticks).
        while (threads.getCurrentThreadCpuTime() - cpuFrom < 300_000_000L) {
            spins++;
        }
        CpuWindow to = CpuWindow.take(pid);
        double seconds = (to.nanos() - from.nanos()) / 1e9;
        assertThat(spins).isPositive();
        assertThat(from.cores(to) * seconds).as("CPU seconds in the window").isGreaterThanOrEqualTo(0.25);
        assertThat(from.until(to, 3))
                .startsWith("the service used ")
                .contains("CPU s by thread group:")
                .contains("CPU s by process: ");
        // On two cores no more than a handful of processes can have used more than this one in the window.
        assertThat(from.until(to, 50))
                .as("this process among the machine's busiest, in whatever place the others leave it")
                .contains(" java " + pid + " ");
        assertThat(new CpuWindow(to.nanos(), pid, -1, Map.of(), null, Map.of()).until(to, 3))
                .isEqualTo("CPU not readable on this system");
    }

    @Test
    void processesAreLabelledSoThatDatabaseBackendsAddUpByDatabase() {
        byte[] backend = "postgres: postgres sendlog 127.0.0.1(40112) idle\0\0".getBytes();
        assertThat(ProcCpu.processLabel("12", "postgres", backend)).isEqualTo("postgres: postgres sendlog");
        assertThat(ProcCpu.processLabel("13", "postgres", "postgres: walwriter \0".getBytes()))
                .isEqualTo("postgres: walwriter");
        assertThat(ProcCpu.processLabel("14", "postgres", "/usr/lib/postgresql/15/bin/postgres\0-D\0/x\0".getBytes()))
                .isEqualTo("postgres");
        assertThat(ProcCpu.processLabel("15", "java", "java\0-jar\0x.jar\0".getBytes()))
                .isEqualTo("java 15");
        assertThat(ProcCpu.processLabel("16", "redis-server", "redis-server *:6379\0".getBytes()))
                .isEqualTo("redis-server");
    }
}
