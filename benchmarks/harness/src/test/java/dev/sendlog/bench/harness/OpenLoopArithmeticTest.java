package dev.sendlog.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.sendlog.bench.harness.OpenLoopReport.Sustained;
import dev.sendlog.bench.harness.OpenStep.Verdict;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The open-loop scenario's pure parts: the schedule and the generator's achieved rate, a step's figures and verdict,
 * a ramp's highest sustained rate, the median over repeats, the common rate, the target lines and the report.
 */
class OpenLoopArithmeticTest {
    private static final SystemUnderTest SENDLOG = new SystemUnderTest.Sendlog(Path.of("s.jar"), Path.of("c.yml"));
    private static final SystemUnderTest MUTABLE = new SystemUnderTest.MutableOutbox(Path.of("m.jar"), 500, 100);
    private static final SystemUnderTest PEER = new SystemUnderTest.TransactionOutboxPeer(Path.of("p.jar"));
    private static final List<Integer> RATES = List.of(200, 400, 600, 800);

    @Test
    void theScheduleSpacesRequestsEvenlyAndTheAchievedRateIsTheSentOnesOverTheScheduleOrLonger() {
        long[] offsets = OpenLoopGenerator.schedule(1000, 2);
        assertThat(offsets).hasSize(2000);
        assertThat(offsets[0]).isZero();
        assertThat(offsets[1]).isEqualTo(1_000_000);
        assertThat(offsets[1999]).isEqualTo(1_999_000_000L);
        assertThat(OpenLoopGenerator.schedule(300, 1)[1]).isEqualTo(3_333_333);
        assertThatThrownBy(() -> OpenLoopGenerator.schedule(0, 1)).isInstanceOf(IllegalArgumentException.class);

        long[] onTime = new long[2000];
        assertThat(OpenLoopGenerator.achievedPerSecond(1000, offsets, onTime)).isCloseTo(1000, within(1e-9));
        // Every request 5 ms late: the schedule ends 5 ms later, 0.25% under the rate.
        long[] steadyLag = new long[2000];
        Arrays.fill(steadyLag, 5_000_000);
        assertThat(OpenLoopGenerator.achievedPerSecond(1000, offsets, steadyLag))
                .isCloseTo(2000 / 2.005, within(1e-9));
        // The last one 30 ms late: 2,000 in 2.03 s, 1.5% under.
        long[] lateEnd = new long[2000];
        lateEnd[1999] = 30_000_000;
        assertThat(OpenLoopGenerator.achievedPerSecond(1000, offsets, lateEnd)).isCloseTo(2000 / 2.03, within(1e-9));
        // Ten never sent (-1): 1,990 in 2 s.
        long[] unsent = new long[2000];
        Arrays.fill(unsent, 0, 10, -1);
        assertThat(OpenLoopGenerator.achievedPerSecond(1000, offsets, unsent)).isCloseTo(995, within(1e-9));
    }

    @Test
    void theGeneratorIsBehindBelowNinetyNinePercentUnlessTheSystemHeldEveryConnection() {
        assertThat(OpenStep.generatorBehind(1000, 990, 0)).isFalse();
        assertThat(OpenStep.generatorBehind(1000, 989.9, 0)).isTrue();
        assertThat(OpenStep.generatorBehind(1000, 500, 3)).isFalse();
    }

    @Test
    void aStepIsJudgedGeneratorFirstThenErrorsThenTheP99() {
        assertThat(OpenStep.judge(true, 0, 5, 0, Double.POSITIVE_INFINITY, 1000))
                .isEqualTo(Verdict.GENERATOR_BEHIND);
        assertThat(OpenStep.judge(false, 100, 1, 0, 10, 1000)).isEqualTo(Verdict.ERRORS);
        assertThat(OpenStep.judge(false, 100, 0, 1, 10, 1000)).isEqualTo(Verdict.ERRORS);
        assertThat(OpenStep.judge(false, 0, 0, 0, Double.NaN, 1000)).isEqualTo(Verdict.ERRORS);
        assertThat(OpenStep.judge(false, 100, 0, 0, 1000.1, 1000)).isEqualTo(Verdict.P99);
        assertThat(OpenStep.judge(false, 100, 0, 0, Double.POSITIVE_INFINITY, 1000))
                .isEqualTo(Verdict.P99);
        assertThat(OpenStep.judge(false, 100, 0, 0, 1000, 1000)).isEqualTo(Verdict.PASSED);
    }

    @Test
    void aStepsLatenciesRunFromTheScheduledTimeAndAMessageNeverAtTheProviderIsInfinitelyLate() {
        // Four requests at 1,000/s from t = 1,000,000 us; each answered 2, 3, 4, 50 ms after its scheduled time.
        long[] offsets = OpenLoopGenerator.schedule(1000, 0.004);
        long[] scheduled = {1_000_000, 1_001_000, 1_002_000, 1_003_000};
        long[] answers = {2_000_000, 3_000_000, 4_000_000, 50_000_000};
        String[] ids = {"a", "b", "c", "d"};
        OpenLoopGenerator.Offered offered =
                new OpenLoopGenerator.Offered(1000, offsets, scheduled, new long[4], answers, ids, 0, 0, 0, 4);
        // The provider recorded a 10 ms, b 20 ms and c 30 ms after their scheduled times; d 700 ms after.
        Map<String, Long> recorded = Map.of("a", 1_010_000L, "b", 1_021_000L, "c", 1_032_000L, "d", 1_703_000L);

        OpenStep step = OpenStep.of("sendlog", 1, 1, 0.004, offered, recorded, 0, 1000);

        assertThat(step.accepted()).isEqualTo(4);
        assertThat(step.delivered()).isEqualTo(4);
        assertThat(step.achievedPerSecond()).isCloseTo(1000, within(1e-9));
        assertThat(step.acceptP50Ms()).isEqualTo(3.0);
        assertThat(step.acceptP99Ms()).isEqualTo(50.0);
        assertThat(step.e2eP50Ms()).isEqualTo(20.0);
        assertThat(step.e2eP99Ms()).isEqualTo(700.0);
        assertThat(step.verdict()).isEqualTo(Verdict.PASSED);
        assertThat(offered.endEpochMicros()).isEqualTo(1_004_000);

        OpenStep late = OpenStep.of(
                "sendlog", 1, 1, 0.004, offered, Map.of("a", 1_010_000L, "b", 1_021_000L, "c", 1_032_000L), 0, 1000);
        assertThat(late.delivered()).isEqualTo(3);
        assertThat(late.e2eP50Ms()).isEqualTo(20.0);
        assertThat(late.e2eP99Ms()).isInfinite();
        assertThat(late.verdict()).isEqualTo(Verdict.P99);
        assertThat(late.csv()).endsWith(",20.0,Infinity,p99");

        ids[3] = null;
        OpenStep refused = OpenStep.of(
                "sendlog",
                1,
                1,
                0.004,
                new OpenLoopGenerator.Offered(1000, offsets, scheduled, new long[4], answers, ids, 1, 0, 0, 4),
                recorded,
                0,
                1000);
        assertThat(refused.accepted()).isEqualTo(3);
        assertThat(refused.acceptP99Ms()).isEqualTo(4.0);
        assertThat(refused.verdict()).isEqualTo(Verdict.ERRORS);
    }

    @Test
    void theHighestSustainedRateIsTheLastStepPassedBeforeTheFirstOneNotPassed() {
        Sustained failed = OpenLoopReport.sustained(
                List.of(
                        step("sendlog", 1, 1, 200, Verdict.PASSED, 50),
                        step("sendlog", 1, 2, 400, Verdict.PASSED, 80),
                        step("sendlog", 1, 3, 600, Verdict.P99, 1500)),
                4);
        assertThat(failed)
                .isEqualTo(new Sustained(400, false, "accept-to-provider-accepted p99 1500.0 ms at 600 msg/s"));
        assertThat(failed.text()).isEqualTo("400");

        Sustained all = OpenLoopReport.sustained(
                List.of(step("sendlog", 1, 1, 200, Verdict.PASSED, 50), step("sendlog", 1, 2, 400, Verdict.PASSED, 80)),
                2);
        assertThat(all.perSecond()).isEqualTo(400);
        assertThat(all.lowerBound()).isTrue();
        assertThat(all.text()).isEqualTo("≥ 400");
        assertThat(all.why()).isEqualTo("passed every step up to 400 msg/s");

        Sustained behind = OpenLoopReport.sustained(
                List.of(
                        step("sendlog", 1, 1, 200, Verdict.PASSED, 50),
                        step("sendlog", 1, 2, 400, Verdict.GENERATOR_BEHIND, 80)),
                4);
        assertThat(behind.perSecond()).isEqualTo(200);
        assertThat(behind.lowerBound()).isTrue();
        assertThat(behind.why()).startsWith("the generator fell behind at 400 msg/s");

        Sustained none = OpenLoopReport.sustained(List.of(step("peer", 1, 1, 200, Verdict.ERRORS, 50)), 4);
        assertThat(none.perSecond()).isZero();
        assertThat(none.lowerBound()).isFalse();
        assertThat(none.why()).isEqualTo("1 refused or failed and 0 unanswered requests at 200 msg/s");
    }

    @Test
    void theRepeatsMedianIsTheLowerMiddleAndABoundOnlyWhenNoRepeatAtThatRateFailed() {
        assertThat(OpenLoopReport.median(List.of(exact(600), exact(200), exact(400)))
                        .perSecond())
                .isEqualTo(400);
        assertThat(OpenLoopReport.median(List.of(exact(800), exact(200), exact(600), exact(400)))
                        .perSecond())
                .isEqualTo(400);
        assertThat(OpenLoopReport.median(List.of(bound(400), exact(400), exact(800)))
                        .lowerBound())
                .isFalse();
        assertThat(OpenLoopReport.median(List.of(bound(400), bound(400), exact(200)))
                        .lowerBound())
                .isTrue();
        assertThat(OpenLoopReport.median(List.of()).perSecond()).isZero();
    }

    @Test
    void theCommonRateIsTheLowestSustainedRate() {
        assertThat(OpenLoopReport.commonRate(List.of(exact(2000), bound(3000), exact(800))))
                .isEqualTo(800);
        assertThat(OpenLoopReport.commonRate(List.of(exact(2000), exact(0)))).isZero();
        assertThat(OpenLoopReport.commonRate(List.of())).isZero();
    }

    @Test
    void targetLinesSayMetNotMetOrNotDeterminedByTheBounds() {
        assertThat(OpenLoopReport.target("m", exact(1600), exact(1000), 1.5))
                .isEqualTo(
                        "- against m: highest sustained rate 1600 against 1000 msg/s: 1.60× (target ≥ 1.5×: **met**)");
        assertThat(OpenLoopReport.target("p", exact(1600), exact(1000), 2))
                .isEqualTo(
                        "- against p: highest sustained rate 1600 against 1000 msg/s: 1.60× (target ≥ 2×: **not met**)");
        // sendlog passed every step: its ratio is a lower bound, enough when it already meets the target.
        assertThat(OpenLoopReport.target("p", bound(3000), exact(1000), 2))
                .isEqualTo(
                        "- against p: highest sustained rate ≥ 3000 against 1000 msg/s: ≥ 3.00× (target ≥ 2×: **met**)");
        assertThat(OpenLoopReport.target("p", bound(1600), exact(1000), 2))
                .endsWith(
                        "≥ 1.60× (target ≥ 2×: **not determined**: sendlog's ramp did not end at a failure of sendlog)");
        // The other passed every step: the ratio is an upper bound, enough to miss the target.
        assertThat(OpenLoopReport.target("m", exact(1300), bound(1000), 1.5))
                .endsWith("rate 1300 against ≥ 1000 msg/s: ≤ 1.30× (target ≥ 1.5×: **not met**)");
        assertThat(OpenLoopReport.target("m", exact(2000), bound(1000), 1.5)).contains("**not determined**");
        assertThat(OpenLoopReport.target("m", bound(3000), bound(3000), 1.5)).contains("**not determined**");
        assertThat(OpenLoopReport.target("m", exact(200), exact(0), 1.5)).endsWith("(target ≥ 1.5×: **met**)");
        assertThat(OpenLoopReport.target("m", exact(0), exact(0), 1.5))
                .endsWith("(target ≥ 1.5×: **not determined**: neither sustained the lowest rate)");
    }

    @Test
    void theReportHasEachSystemsSustainedRateTheLatenciesAtTheCommonRateAndTheTargets(@TempDir Path folder)
            throws Exception {
        List<OpenStep> steps = new ArrayList<>();
        for (int repeat = 1; repeat <= 3; repeat++) {
            // sendlog passes every step; the mutable outbox fails at 800 in repeat 1, at 600 in 2 and 3; the peer at
            // 400.
            for (int k = 0; k < RATES.size(); k++) {
                steps.add(step("sendlog", repeat, k + 1, RATES.get(k), Verdict.PASSED, 10 * (k + 1) + repeat));
            }
            int mutableFails = repeat == 1 ? 800 : 600;
            for (int k = 0; k < RATES.size() && RATES.get(k) <= mutableFails; k++) {
                steps.add(step(
                        "mutable",
                        repeat,
                        k + 1,
                        RATES.get(k),
                        RATES.get(k) == mutableFails ? Verdict.P99 : Verdict.PASSED,
                        100 * (k + 1) + repeat));
            }
            steps.add(step("peer", repeat, 1, 200, Verdict.PASSED, 300 + repeat));
            steps.add(step("peer", repeat, 2, 400, Verdict.P99, 1200 + repeat));
        }
        OpenLoopReport report = new OpenLoopReport(
                new OpenLoopReport.Settings(RATES, 20, 256, 1, 1000, 64, true, 3, 200, 64),
                new OpenLoopReport.Context(
                        "today", 2, "PostgreSQL 15", "9 min", 0.5, 3.5, "3000 submits/s offered ..."),
                List.of(SENDLOG, MUTABLE, PEER),
                steps);

        assertThat(report.sustained("sendlog"))
                .isEqualTo(new Sustained(800, true, "passed every step up to 800 msg/s"));
        assertThat(report.sustained("mutable").perSecond()).isEqualTo(400);
        assertThat(report.sustained("peer").perSecond()).isEqualTo(200);
        assertThat(report.medianAt("sendlog", 200, OpenStep::e2eP99Ms)).isEqualTo(12);
        String md = report.markdown(".");
        assertThat(md).contains("Latencies at 200 msg/s, the highest rate all 3 sustained");
        assertThat(md).contains("| sendlog | ≥ 800 | 1.0 | 2.0 | 6.0 | 12.0 | 0.5 |");
        assertThat(md).contains("| mutable outbox (baseline) | 400 | 1.0 | 2.0 | 51.0 | 102.0 | 0.5 |");
        assertThat(md).contains("| transactionoutbox 4.2.268 (peer) | 200 | 1.0 | 2.0 | 151.0 | 302.0 | 0.5 |");
        assertThat(md)
                .contains("- mutable outbox (baseline), repeat 1: sustained 600 msg/s; accept-to-provider-accepted"
                        + " p99 401.0 ms at 800 msg/s");
        assertThat(md)
                .contains("- against mutable outbox (baseline): highest sustained rate ≥ 800 against 400 msg/s:"
                        + " ≥ 2.00× (target ≥ 1.5×: **met**)");
        assertThat(md)
                .contains("- against transactionoutbox 4.2.268 (peer): highest sustained rate ≥ 800 against"
                        + " 200 msg/s: ≥ 4.00× (target ≥ 2×: **met**)");
        assertThat(md).contains("Generator check against the simulator alone: 3000 submits/s offered ...");
        assertThat(report.stepsCsv().lines().count()).isEqualTo(1 + steps.size());
        assertThat(report.stepsCsv()).startsWith(OpenStep.CSV_HEADER + "\nsendlog,1,1,200,20,");

        // Without a rate all sustained, the latencies are those of the lowest rate, said so.
        List<OpenStep> peerFailsAt200 = new ArrayList<>(
                steps.stream().filter(st -> !st.system().equals("peer")).toList());
        peerFailsAt200.add(step("peer", 1, 1, 200, Verdict.ERRORS, 5000));
        String none = new OpenLoopReport(
                        new OpenLoopReport.Settings(RATES, 20, 256, 1, 1000, 64, true, 3, 200, 64),
                        new OpenLoopReport.Context("today", 2, "PostgreSQL 15", "9 min", 0.5, 3.5, ""),
                        List.of(SENDLOG, MUTABLE, PEER),
                        peerFailsAt200)
                .markdown(".");
        assertThat(none)
                .contains("**No rate was sustained by all of them**: latencies at the lowest rate offered,"
                        + " 200 msg/s, which not all sustained");
        assertThat(none).contains("| transactionoutbox 4.2.268 (peer) | 0 | 1.0 | 2.0 | 2500.0 | 5000.0 | 0.5 |");
        assertThat(none).contains("- (transactionoutbox 4.2.268 (peer) ran 200 msg/s in 1 of 3 repeats)");
        assertThat(none).contains("highest sustained rate ≥ 800 against 0 msg/s (target ≥ 2×: **met**)");

        report.chart(folder);
        byte[] png = Files.readAllBytes(folder.resolve("open-latency.png"));
        assertThat(new String(png, 1, 3, java.nio.charset.StandardCharsets.US_ASCII))
                .isEqualTo("PNG");
    }

    @Test
    void ratesMustIncreaseAndTheScenariosJoinInTheMarkdown() {
        assertThat(BenchMain.numbers(" 200, 400 ,600")).containsExactly(200, 400, 600);
        assertThat(BenchMain.increasing(List.of(200, 400, 600))).isTrue();
        assertThat(BenchMain.increasing(List.of(200, 200))).isFalse();
        assertThat(BenchMain.increasing(List.of(0, 200))).isFalse();
        assertThat(BenchMain.increasing(List.of())).isFalse();
        assertThat(BenchMain.markdown(null, null, ".")).isEmpty();
    }

    /** A step whose accept p50/p99 are 1/2 ms and whose e2e p50/p99 are half of {@code e2eP99} and it. */
    private static OpenStep step(String system, int repeat, int step, double rate, Verdict verdict, double e2eP99) {
        return new OpenStep(
                system,
                repeat,
                step,
                rate,
                20,
                (int) (rate * 20),
                rate,
                0.5,
                0,
                10,
                (int) (rate * 20),
                verdict == Verdict.ERRORS ? 1 : 0,
                0,
                (int) (rate * 20),
                0,
                1,
                2,
                e2eP99 / 2,
                e2eP99,
                verdict);
    }

    private static Sustained exact(double rate) {
        return new Sustained(rate, false, "failed at the next");
    }

    private static Sustained bound(double rate) {
        return new Sustained(rate, true, "passed every step");
    }
}
