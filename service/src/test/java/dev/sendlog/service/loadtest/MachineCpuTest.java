package dev.sendlog.service.loadtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** The load generator's reading of {@code /proc/stat}: busy ticks within the total, both counting up. */
class MachineCpuTest {
    @Test
    void busyTicksAreWithinTheTotalAndBothCountUp() {
        Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/stat")), "only where /proc/stat exists (Linux)");
        long[] first = MachineCpu.busyAndTotalTicks();
        assertThat(first).hasSize(2);
        assertThat(first[0]).isPositive().isLessThanOrEqualTo(first[1]);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            long[] later = MachineCpu.busyAndTotalTicks();
            assertThat(later[1]).isGreaterThan(first[1]);
            assertThat(later[0]).isGreaterThanOrEqualTo(first[0]).isLessThanOrEqualTo(later[1]);
        });
    }
}
