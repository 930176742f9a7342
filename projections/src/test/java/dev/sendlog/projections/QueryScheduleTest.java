package dev.sendlog.projections;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class QueryScheduleTest {
    private static final Instant SENT = Instant.parse("2026-12-01T10:00:00Z");
    private final QuerySchedule schedule = new QuerySchedule(
            Duration.ofMinutes(10),
            Duration.ofHours(48),
            Duration.ofMinutes(5),
            Duration.ofMinutes(1),
            Duration.ofSeconds(5));

    private List<Instant> points() {
        List<Instant> points = new ArrayList<>();
        Instant now = SENT;
        for (int i = 0; i < 100; i++) {
            Instant next = schedule.next(SENT, now);
            points.add(next);
            if (!next.isBefore(schedule.unknownAt(SENT))) {
                break;
            }
            now = next;
        }
        return points;
    }

    @Test
    void theFirstQueryComesTenMinutesAfterAcceptanceThenTheIntervalsDoubleUpToTheWindow() {
        List<Instant> points = points();
        assertThat(points.subList(0, 4))
                .containsExactly(
                        SENT.plus(Duration.ofMinutes(10)),
                        SENT.plus(Duration.ofMinutes(20)),
                        SENT.plus(Duration.ofMinutes(40)),
                        SENT.plus(Duration.ofMinutes(80)));
        assertThat(points).contains(schedule.end(SENT));
        assertThat(points.getLast()).isEqualTo(schedule.unknownAt(SENT));
        assertThat(points).isSorted().doesNotHaveDuplicates();
        assertThat(points.size()).as("a bounded number of queries per message").isLessThan(20);
    }

    @Test
    void inTheGraceTheQueriesComeEveryRetryIntervalUntilTheMessageIsUnknown() {
        Instant end = schedule.end(SENT);
        assertThat(schedule.next(SENT, end)).isEqualTo(end.plus(Duration.ofMinutes(1)));
        assertThat(schedule.next(SENT, end.plus(Duration.ofMinutes(4)))).isEqualTo(schedule.unknownAt(SENT));
        assertThat(schedule.due(SENT, end.plus(Duration.ofMinutes(4)))).isTrue();
        assertThat(schedule.due(SENT, schedule.unknownAt(SENT).plusSeconds(1))).isFalse();
    }

    @Test
    void nothingIsDueBeforeTheFirstPointAndAPointWithinTheCoalescingIsDueNow() {
        assertThat(schedule.due(SENT, SENT.plus(Duration.ofMinutes(9)))).isFalse();
        assertThat(schedule.due(SENT, SENT.plus(Duration.ofMinutes(10)).minusSeconds(3)))
                .isTrue();
        assertThat(schedule.last(SENT, SENT.plus(Duration.ofMinutes(10)))).isFalse();
        assertThat(schedule.last(SENT, schedule.end(SENT).minusSeconds(3))).isTrue();
    }

    @Test
    void aFirstQueryLaterThanTheWindowIsAskedOnceAtTheEnd() {
        QuerySchedule late = new QuerySchedule(
                Duration.ofHours(1), Duration.ofMinutes(30), Duration.ZERO, Duration.ofMinutes(1), Duration.ZERO);
        assertThat(late.next(SENT, SENT)).isEqualTo(late.end(SENT));
        assertThat(late.due(SENT, late.end(SENT)))
                .as("asked at the end, not never")
                .isTrue();
        assertThat(late.last(SENT, late.end(SENT))).isTrue();
    }

    /** Over many random settings: the points rise strictly, come to UNKNOWN in a bounded number, and each is due when it comes. */
    @Test
    void everyScheduleRisesStrictlyToItsUnknownTimeInFewStepsAndEachPointIsDue() {
        java.util.Random random = new java.util.Random(32);
        for (int run = 0; run < 2_000; run++) {
            QuerySchedule s = new QuerySchedule(
                    Duration.ofSeconds(1 + random.nextInt(3_600)),
                    Duration.ofSeconds(random.nextInt(200_000)),
                    Duration.ofSeconds(random.nextInt(1_000)),
                    Duration.ofSeconds(1 + random.nextInt(120)),
                    Duration.ofSeconds(random.nextInt(6)));
            Instant now = SENT;
            int steps = 0;
            while (now.isBefore(s.unknownAt(SENT))) {
                Instant next = s.next(SENT, now);
                assertThat(next).as(s + " after " + now).isAfter(now);
                assertThat(next).isBeforeOrEqualTo(s.unknownAt(SENT));
                if (next.isBefore(s.unknownAt(SENT))) {
                    assertThat(s.due(SENT, next)).as(s + " at " + next).isTrue();
                }
                now = next;
                assertThat(++steps)
                        .as(s.toString())
                        .isLessThan(64
                                + (int) (s.grace().toSeconds() / s.retryEvery().toSeconds())
                                + 2);
            }
        }
    }
}
