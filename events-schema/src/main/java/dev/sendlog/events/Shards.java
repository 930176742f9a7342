package dev.sendlog.events;

import java.util.UUID;

/**
 * The logical shard of a message: a fixed function of its id. Pollers own shards by lease, so the
 * number of shards is fixed for the life of a database (see the shard_count setting).
 */
public final class Shards {
    private Shards() {}

    public static short of(UUID messageId, int shardCount) {
        if (shardCount <= 0 || shardCount > Short.MAX_VALUE) {
            throw new IllegalArgumentException("shardCount out of range: " + shardCount);
        }
        // The low 62 bits of a UUIDv7 are random: uniform across shards.
        return (short) Math.floorMod(messageId.getLeastSignificantBits() & 0x3FFF_FFFF_FFFF_FFFFL, shardCount);
    }
}
