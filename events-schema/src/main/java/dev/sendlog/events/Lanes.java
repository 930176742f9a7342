package dev.sendlog.events;

import java.util.UUID;

/**
 * Which shard a message belongs to, by its id and its priority. The {@code normal} lane is shards
 * {@code 0 .. normalShards-1}, exactly {@link Shards#of} as before priorities existed; the {@code high} lane is the
 * {@code highShards} shards after them. A message's shard is chosen once, at acceptance, stored in its row and carried
 * by every event it gets: a shard is a lane's unit of work for the pollers (its own tail cursor), so high work is read
 * and published past a normal backlog that is waiting for room on its stream.
 *
 * <p>Both counts are fixed for the life of a database, as the shard count always was: adding high shards to an existing
 * database is safe (normal messages keep their shards), changing the normal count is not.
 */
public record Lanes(int normalShards, int highShards) {
    public Lanes {
        if (normalShards <= 0 || highShards <= 0 || normalShards + highShards > Short.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "shard counts out of range: normal " + normalShards + ", high " + highShards);
        }
    }

    /** Every shard, both lanes: the pollers' leases cover {@code 0 .. total()-1}. */
    public int total() {
        return normalShards + highShards;
    }

    /** The shard a new message of {@code priority} goes to (a fixed function of its id within the lane). */
    public short shardOf(UUID messageId, Priority priority) {
        return priority == Priority.HIGH
                ? (short) (normalShards + Shards.of(messageId, highShards))
                : Shards.of(messageId, normalShards);
    }

    /** The lane of a stored shard. */
    public Priority priorityOf(short shard) {
        if (shard < 0 || shard >= total()) {
            throw new IllegalArgumentException("no shard " + shard + " among " + total());
        }
        return shard >= normalShards ? Priority.HIGH : Priority.NORMAL;
    }
}
