package dev.sendlog.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class MessageIdsTest {

    @Test
    void idsAreVersionSevenAndCarryTheirMillisecond() {
        Instant now = Instant.parse("2026-11-30T09:31:02.123Z");
        UUID id = new MessageIds(InstantSource.fixed(now)).next();
        assertThat(id.version()).isEqualTo(7);
        assertThat(id.variant()).isEqualTo(2);
        assertThat(MessageIds.instantOf(id)).isEqualTo(now);
    }

    @Test
    void idsFromOneGeneratorIncreaseEvenWithinOneMillisecond() {
        MessageIds ids = new MessageIds(InstantSource.fixed(Instant.parse("2026-11-30T00:00:00Z")));
        List<UUID> generated = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            generated.add(ids.next());
        }
        assertThat(new HashSet<>(generated)).hasSize(2_000);
        for (int i = 1; i < generated.size(); i++) {
            // PostgreSQL compares uuids as unsigned bytes; the high word here is positive, so signed compare agrees.
            assertThat(generated.get(i).getMostSignificantBits())
                    .isGreaterThan(generated.get(i - 1).getMostSignificantBits());
        }
    }

    @Test
    void aClockThatStepsBackIsFollowedRatherThanPinningIdsToTheFuture() {
        Instant future = Instant.parse("2027-01-01T00:00:00Z");
        Instant now = Instant.parse("2026-11-30T00:00:00Z");
        java.util.concurrent.atomic.AtomicReference<Instant> clock =
                new java.util.concurrent.atomic.AtomicReference<>(future);
        MessageIds ids = new MessageIds(clock::get);
        assertThat(MessageIds.instantOf(ids.next())).isEqualTo(future);
        clock.set(now);
        assertThat(MessageIds.instantOf(ids.next())).isEqualTo(now);
    }

    @Test
    void theLowerBoundOfADaySortsBelowEveryIdOfThatDayAndAboveThePreviousDay() {
        Instant midnight = Instant.parse("2026-12-01T00:00:00Z");
        UUID bound = MessageIds.lowerBound(midnight);
        UUID lastOfPreviousDay = new MessageIds(InstantSource.fixed(midnight.minusMillis(1))).next();
        UUID firstOfDay = new MessageIds(InstantSource.fixed(midnight)).next();
        assertThat(Long.compareUnsigned(lastOfPreviousDay.getMostSignificantBits(), bound.getMostSignificantBits()))
                .isNegative();
        assertThat(Long.compareUnsigned(bound.getMostSignificantBits(), firstOfDay.getMostSignificantBits()))
                .isNegative();
    }

    @Test
    void lowerBoundsOutsideTheIdRangeAreTheSmallestAndLargestUuidInsteadOfOverflowing() {
        UUID smallest = new UUID(0L, 0L);
        UUID largest = new UUID(-1L, -1L);
        assertThat(MessageIds.lowerBound(Instant.parse("1969-12-31T23:59:59.999Z")))
                .isEqualTo(smallest);
        assertThat(MessageIds.lowerBound(Instant.MIN)).isEqualTo(smallest);
        assertThat(MessageIds.lowerBound(Instant.EPOCH)).isEqualTo(smallest);
        assertThat(MessageIds.lowerBound(Instant.ofEpochMilli((1L << 48) - 1)).getMostSignificantBits())
                .isEqualTo(0xFFFF_FFFF_FFFF_0000L);
        assertThat(MessageIds.lowerBound(Instant.ofEpochMilli(1L << 48))).isEqualTo(largest);
        assertThat(MessageIds.lowerBound(Instant.parse("+999999999-12-31T23:59:59Z")))
                .isEqualTo(largest);
        assertThat(MessageIds.lowerBound(Instant.MAX)).isEqualTo(largest);
    }

    @Test
    void shardsSpreadIdsOverEveryShard() {
        MessageIds ids = new MessageIds(InstantSource.system());
        int[] counts = new int[16];
        for (int i = 0; i < 16_000; i++) {
            counts[Shards.of(ids.next(), 16)]++;
        }
        for (int count : counts) {
            assertThat(count).isBetween(700, 1300);
        }
    }
}
