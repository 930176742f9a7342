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
}
