package dev.sendlog.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class StatsTest {
    @Test
    void percentileIsTheNearestRank() {
        long[] values = {50, 10, 40, 20, 30};
        assertThat(Stats.percentile(values, 0.5)).isEqualTo(30);
        assertThat(Stats.percentile(values, 0.2)).isEqualTo(10);
        assertThat(Stats.percentile(values, 0.21)).isEqualTo(20);
        assertThat(Stats.percentile(values, 0.99)).isEqualTo(50);
        assertThat(Stats.percentile(values, 1.0)).isEqualTo(50);
        assertThat(values).containsExactly(50, 10, 40, 20, 30);
        assertThat(Stats.percentile(new long[0], 0.99)).isZero();
        assertThat(Stats.percentile(new long[] {7}, 0.01)).isEqualTo(7);
        assertThatThrownBy(() -> Stats.percentile(values, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void p99OfOneToAHundredIsNinetyNine() {
        long[] values = new long[100];
        Arrays.setAll(values, i -> i + 1);
        assertThat(Stats.percentile(values, 0.99)).isEqualTo(99);
        assertThat(Stats.percentile(values, 0.5)).isEqualTo(50);
    }

    /** Seeded random samples: at least q of the values lie at or below the percentile, and fewer below it. */
    @Test
    void percentileHasItsDefiningPropertyOnRandomSamples() {
        Random random = new Random(20261130);
        for (int round = 0; round < 500; round++) {
            long[] values = random.longs(1 + random.nextInt(300), 0, 1000).toArray();
            double q = 0.01 + random.nextDouble() * 0.99;
            long p = Stats.percentile(values, q);
            long atOrBelow = Arrays.stream(values).filter(v -> v <= p).count();
            long below = Arrays.stream(values).filter(v -> v < p).count();
            assertThat((double) atOrBelow).isGreaterThanOrEqualTo(q * values.length - 1e-9);
            assertThat((double) below).isLessThan(q * values.length);
        }
    }

    @Test
    void medianOfOddAndEvenCountsAndNaNsLeftOut() {
        assertThat(Stats.median(3, 1, 2)).isEqualTo(2);
        assertThat(Stats.median(4, 1, 3, 2)).isEqualTo(2.5);
        assertThat(Stats.median(5, Double.NaN, 1)).isEqualTo(3);
        assertThat(Stats.median()).isNaN();
        assertThat(Stats.median(Double.NaN)).isNaN();
    }

    @Test
    void ratioIsSendlogOverTheOther() {
        assertThat(Stats.ratio(3000, 1000)).isCloseTo(3.0, within(1e-12));
        assertThat(Stats.ratio(10, 0)).isNaN();
        assertThat(Stats.ratio(Double.NaN, 2)).isNaN();
    }
}
