package dev.sendlog.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The harness's pure parts: one run's figures from its raw timings, medians and ratios in the report. */
class ReportAndRunArithmeticTest {
    private static final SystemUnderTest SENDLOG = new SystemUnderTest.Sendlog(Path.of("s.jar"), Path.of("c.yml"));
    private static final SystemUnderTest MUTABLE = new SystemUnderTest.MutableOutbox(Path.of("m.jar"), 500, 100);
    private static final SystemUnderTest PEER = new SystemUnderTest.TransactionOutboxPeer(Path.of("p.jar"));

    @Test
    void aRunsFiguresComeFromSubmitStartsRoundTripsAndTheSimulatorsRecords() {
        // Four messages submitted 1 ms apart from t = 1,000,000 us, each answered in 2 ms; one refused.
        String[] ids = {"a", "b", null, "d"};
        long[] starts = {1_000_000, 1_001_000, 1_002_000, 1_003_000};
        long[] roundTrips = {2_000_000, 2_000_000, 9_000_000, 2_000_000};
        LoadGenerator.Load load = new LoadGenerator.Load(ids, starts, roundTrips, 1_000_000, 1_005_000, 1);
        // The provider saw a after 10 ms, b after 20 ms, d after 49 ms (so the last arrival is at 1,052,000 us).
        Map<String, Long> recorded = Map.of("a", 1_010_000L, "b", 1_021_000L, "d", 1_052_000L, "other", 9L);

        RunResult r =
                Runner.result(MUTABLE, 16, 2, load, recorded, 0, 3_000, 0.3, 0.09, 0.06, 1_000_000, 1_700_000, 700);

        assertThat(r.accepted()).isEqualTo(3);
        assertThat(r.delivered()).isEqualTo(3);
        assertThat(r.acceptedPerSecond()).isCloseTo(3 / 0.005, within(1e-6));
        assertThat(r.acceptP50Ms()).isEqualTo(2.0);
        assertThat(r.e2ePerSecond()).isCloseTo(3 / 0.052, within(1e-6));
        assertThat(r.e2eP50Ms()).isEqualTo(20.0);
        assertThat(r.e2eP99Ms()).isEqualTo(49.0);
        assertThat(r.walBytesPerMessage()).isEqualTo(1_000.0);
        assertThat(r.systemCpuPer1k()).isCloseTo(100.0, within(1e-9));
        assertThat(r.jitCpuPer1k()).isCloseTo(30.0, within(1e-9));
        assertThat(r.postgresCpuPer1k()).isCloseTo(20.0, within(1e-9));
        assertThat(r.projectedBytesPer100k()).isEqualTo(1_000_000 + 700_000 * (100_000.0 / 700));
    }

    @Test
    void theReportShowsMediansAndSendlogsRatioToEachAlternative() {
        List<RunResult> runs = new ArrayList<>();
        double[][] e2e = {{900, 1000, 1100}, {300, 100, 200}, {600, 500, 400}};
        List<SystemUnderTest> systems = List.of(SENDLOG, MUTABLE, PEER);
        for (int repeat = 0; repeat < 3; repeat++) {
            for (int s = 0; s < 3; s++) {
                runs.add(run(systems.get(s).key(), repeat, e2e[s][repeat], 100.0 * (s + 1)));
            }
        }
        Report report = new Report(
                new Report.Context("today", 2, "PostgreSQL 15", 100, 10, 0, 3, List.of(16), "1 min", systems, 0.5, 2.5),
                runs);

        assertThat(report.median("sendlog", 16, RunResult::e2ePerSecond)).isEqualTo(1000);
        assertThat(report.median("mutable", 16, RunResult::e2ePerSecond)).isEqualTo(200);
        String md = report.markdown(".");
        assertThat(md).contains("load average at the start of the measured loads ranged from 0.5 to 2.5");
        assertThat(md).contains("| 16 | sendlog | 0 | 0.0 | 0.0 | 1000 | 0 | 100 |");
        assertThat(md).contains("| 16 | mutable outbox (baseline) | n/a | n/a | n/a | 5.00× | n/a | 0.50× |");
        assertThat(md).doesNotContain("target ≥ 3×");
    }

    @Test
    void theTargetsAreTheWriteBudgetAgainstTheMutableOutbox() {
        // sendlog: WAL 900, CPU 3.0 of which JIT 1.0 plus PG 0.5 (2.5), size 2 MB; the outbox: WAL 1000, CPU 2.0 of
        // which JIT 0.5 plus PG 0.5 (2.0), size 1 MB.
        List<RunResult> runs = List.of(
                new RunResult(
                        "sendlog", 16, 0, 100, 100, 100, 0, 0, 0, 0, 0, 0, 0, 900, 3.0, 1.0, 0.5, 0, 0, 100, 2_000_000),
                new RunResult(
                        "mutable", 16, 0, 100, 100, 100, 0, 0, 0, 0, 0, 0, 0, 1_000, 2.0, 0.5, 0.5, 0, 0, 100,
                        1_000_000),
                new RunResult("peer", 16, 0, 100, 100, 100, 0, 0, 0, 0, 0, 0, 0, 1, 0.1, 0, 0, 0, 0, 100, 1));
        String md = new Report(
                        new Report.Context(
                                "today",
                                2,
                                "PostgreSQL 15",
                                100,
                                10,
                                0,
                                1,
                                List.of(16),
                                "1 min",
                                List.of(SENDLOG, MUTABLE, PEER),
                                0.5,
                                2.5),
                        runs)
                .markdown(".");

        assertThat(md)
                .contains("- concurrency 16, against mutable outbox (baseline): WAL per message 0.90× (target ≤ 1×:"
                        + " **met**); DB size per 100k 2.00× (target ≤ 1×: **not met**); CPU without the JIT, process plus PG"
                        + " backends 1.25× (target ≤ 1×: **not met**)");
        assertThat(md).doesNotContain("against transactionoutbox 4.2.268 (peer): WAL per message");
    }

    @Test
    void theReportSaysHowTheWarmUpRan() {
        List<RunResult> runs = List.of(run("sendlog", 0, 1000, 100));
        String atOnce = new Report(
                        new Report.Context(
                                "today",
                                2,
                                "PostgreSQL 15",
                                100,
                                10,
                                0,
                                1,
                                List.of(16),
                                "1 min",
                                List.of(SENDLOG),
                                0.5,
                                2.5),
                        runs)
                .markdown(".");
        String at20 = new Report(
                        new Report.Context(
                                "today",
                                2,
                                "PostgreSQL 15",
                                100,
                                10,
                                20,
                                1,
                                List.of(16),
                                "1 min",
                                List.of(SENDLOG),
                                0.5,
                                2.5),
                        runs)
                .markdown(".");

        assertThat(atOnce).contains("after a warm-up of 10 (the simulator answering at once during the warm-up");
        assertThat(at20).contains("after a warm-up of 10 (the simulator answering after 20 ms during the warm-up");
    }

    @Test
    void chartsAreWrittenAsPngs(@TempDir Path folder) throws Exception {
        Report report = new Report(
                new Report.Context(
                        "today",
                        2,
                        "PostgreSQL 15",
                        100,
                        10,
                        0,
                        1,
                        List.of(16, 64),
                        "1 min",
                        List.of(SENDLOG, PEER),
                        0.5,
                        2.5),
                List.of(run("sendlog", 16, 1, 900, 50), run("sendlog", 64, 1, 1900, 70), run("peer", 16, 1, 300, 80)));

        report.charts(folder);

        for (String name : List.of("throughput.png", "latency.png")) {
            byte[] png = Files.readAllBytes(folder.resolve(name));
            assertThat(png).hasSizeGreaterThan(1000);
            assertThat(new String(png, 1, 3, java.nio.charset.StandardCharsets.US_ASCII))
                    .isEqualTo("PNG");
        }
    }

    @Test
    void theReadmeSectionIsReplacedBetweenItsMarkers() {
        String readme = "# x\n\n" + BenchMain.README_BEGIN + "\nold table\n" + BenchMain.README_END + "\n\nafter\n";

        String updated = BenchMain.withSection(readme, "new table\n");

        assertThat(updated)
                .isEqualTo("# x\n\n" + BenchMain.README_BEGIN + "\nnew table\n" + BenchMain.README_END + "\n\nafter\n");
        assertThatThrownBy(() -> BenchMain.withSection("# no markers", "t"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theIdIsReadFromEachSystemsAcceptAnswer() {
        assertThat(LoadGenerator.idOf("{\"id\":\"0192f0e4-7b1c-7000-8000-000000000001\",\"status\":\"ACCEPTED\"}"))
                .isEqualTo("0192f0e4-7b1c-7000-8000-000000000001");
        assertThat(LoadGenerator.idOf("{\"status\":\"ACCEPTED\", \"id\" : \"x-1\"}"))
                .isEqualTo("x-1");
        assertThat(LoadGenerator.idOf("{\"type\":\"about:blank\"}")).isNull();
    }

    private static RunResult run(String system, int repeat, double e2ePerSecond, double e2eP99Ms) {
        return run(system, 16, repeat, e2ePerSecond, e2eP99Ms);
    }

    private static RunResult run(String system, int concurrency, int repeat, double e2ePerSecond, double e2eP99Ms) {
        return new RunResult(
                system,
                concurrency,
                repeat,
                100,
                100,
                100,
                0,
                0,
                0,
                0,
                e2ePerSecond,
                0,
                e2eP99Ms,
                0,
                0,
                0,
                0,
                0,
                0,
                100,
                0);
    }
}
