package dev.sendlog.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The harness starts its provider simulator from the jar the build makes ({@code tools/target/sendlog-tools.jar},
 * packaged before this module's tests run) exactly as {@code scripts/bench} does, and talks to it. When the simulator
 * moved out of the product jar, the harness went on asking {@code sendlog.jar} for it and every benchmark run failed at
 * its start; this test fails on that.
 */
class SimulatorProcessTest {

    @Test
    void theHarnessStartsTheSimulatorFromTheToolsJarAndReadsItsRecords(@TempDir Path work) throws Exception {
        Path toolsJar = Path.of("../../tools/target/sendlog-tools.jar").toAbsolutePath();
        assertThat(toolsJar).as("the tools jar, built before this module").isRegularFile();

        Process process = BenchMain.startSimulator(toolsJar, work);
        try {
            Simulator simulator = new Simulator(BenchMain.readSimulatorUrl(process));
            simulator.latency(0);
            simulator.reset();

            assertThat(simulator.uniqueKeys()).isZero();
            assertThat(simulator.duplicateSubmits()).isZero();
            assertThat(simulator.recordedAtByReference()).isEmpty();
        } finally {
            process.destroy();
            assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(Files.readString(work.resolve("simulator.json"))).contains("\"latencyMs\"");
    }
}
