package dev.sendlog.service.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code process.cpu.seconds}: the process's own CPU time, which the load generator turns into CPU per message. */
class ProcessCpuGaugeTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness("components", "API");

    @Test
    void theProcessCpuTimeIsExportedAndGrowsWithWork() {
        double before = cpuSeconds();
        assertThat(before).isPositive();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            Messages.submitOne(SERVICE, Messages.recipient());
            assertThat(cpuSeconds()).isGreaterThan(before);
        });
    }

    private static double cpuSeconds() {
        return SERVICE.admin()
                .get("/metrics", null)
                .json()
                .path("gauges")
                .path("process.cpu.seconds")
                .path("value")
                .asDouble(Double.NaN);
    }
}
