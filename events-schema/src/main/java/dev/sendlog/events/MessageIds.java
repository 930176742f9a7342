package dev.sendlog.events;

import java.security.SecureRandom;
import java.time.Instant;
import java.time.InstantSource;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Time-ordered message ids (UUID version 7, RFC 9562): 48 bits of Unix milliseconds, then random
 * bits. Ids sort by acceptance time, so a day's messages form one range and one partition.
 * Within one millisecond of one generator, ids still increase (12 bits count up from a random
 * start), which keeps index inserts at the right edge.
 */
public final class MessageIds {
    private static final long VERSION_7 = 0x7000L;
    private static final long VARIANT_RFC = 0x8000_0000_0000_0000L;
    /** The last millisecond 48 bits hold: 10889-08-02T05:31:50.655Z. */
    private static final long MAX_MILLIS = (1L << 48) - 1;

    private final InstantSource clock;
    private final SecureRandom random = new SecureRandom();
    private final AtomicLong last = new AtomicLong();

    public MessageIds(InstantSource clock) {
        this.clock = clock;
    }

    public UUID next() {
        long millis = clock.millis();
        long randB = random.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL;
        // Within one millisecond, count up from the last stamp so ids keep increasing. If the clock steps
        // back, follow it (ids stay unique through their random bits) rather than pinning every later id
        // to the old, later time.
        long stamped = last.updateAndGet(prev -> (prev >>> 12) == millis && (prev & 0xFFF) < 0xFFF
                ? prev + 1
                : (millis << 12) | random.nextInt(1 << 11));
        long msb = ((stamped >>> 12) << 16) | VERSION_7 | (stamped & 0xFFF);
        return new UUID(msb, VARIANT_RFC | randB);
    }

    /** The Unix milliseconds an id was generated at. */
    public static long epochMillisOf(UUID id) {
        return id.getMostSignificantBits() >>> 16;
    }

    public static Instant instantOf(UUID id) {
        return Instant.ofEpochMilli(epochMillisOf(id));
    }

    /**
     * The smallest id that any generator can produce at or after {@code at}: a partition bound. Before 1970 that is
     * the smallest uuid; past the last millisecond 48 bits hold, no id is that late, so it is the largest uuid.
     */
    public static UUID lowerBound(Instant at) {
        if (at.getEpochSecond() < 0) {
            return new UUID(0L, 0L);
        }
        if (at.getEpochSecond() > MAX_MILLIS / 1000 || at.toEpochMilli() > MAX_MILLIS) {
            return new UUID(-1L, -1L);
        }
        return new UUID(at.toEpochMilli() << 16, 0L);
    }
}
