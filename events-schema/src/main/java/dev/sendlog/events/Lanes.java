package dev.sendlog.events;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Which shard a message belongs to, by its id, its priority and its tenant. A shard is a lane's unit of work for the
 * pollers (its own tail cursor), and each lane has a send stream and workers of its own, so one lane's backlog never
 * holds another lane's work back.
 *
 * <ul>
 *   <li>The {@code normal} lane is shards {@code 0 .. normalShards-1}, exactly {@link Shards#of} as before lanes
 *       existed.</li>
 *   <li>The {@code high} lane is the {@code highShards} shards after them: every {@code high} message, whatever its
 *       tenant.</li>
 *   <li>A tenant lane (issue 29, fair shares) holds the normal-priority messages of one tenant that has a weight: its
 *       shards come after the high lane's, at the place first given to it, which the database keeps (the
 *       {@code lanes} table), so a lane added later is appended and a lane never moves.</li>
 * </ul>
 *
 * <p>A message's shard is chosen once, at acceptance, stored in its row and carried by every event it gets; which lane a
 * stored shard belongs to must therefore never change for the life of a database. The normal and high counts are fixed
 * once tenant lanes exist; before that, adding high shards is safe (normal messages keep their shards).
 */
public final class Lanes {
    /** A lane: its name ({@code normal}, {@code high}, {@code tenant-<tenant>}), priority, tenant and shard range. */
    public record Lane(String name, Priority priority, String tenant, int firstShard, int shards) {
        public static final String TENANT_PREFIX = "tenant-";

        /** Whether this is a tenant's lane (not the normal or the high one). */
        public boolean isTenant() {
            return tenant != null;
        }

        boolean holds(int shard) {
            return shard >= firstShard && shard < firstShard + shards;
        }
    }

    /** A tenant's lane as the database placed it: its first shard and its shard count. */
    public record TenantLane(String tenant, int firstShard, int shards) {}

    private final int normalShards;
    private final int highShards;
    private final Lane normal;
    private final Lane high;
    private final List<Lane> all;
    private final Map<String, Lane> byTenant = new HashMap<>();
    private final Lane[] byShard;

    /** The normal and high lanes only. */
    public Lanes(int normalShards, int highShards) {
        this(normalShards, highShards, List.of());
    }

    /** @param tenantLanes placed after the high lane's shards, without gaps or overlaps, in any order */
    public Lanes(int normalShards, int highShards, List<TenantLane> tenantLanes) {
        if (normalShards <= 0 || highShards <= 0 || normalShards + highShards > Short.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "shard counts out of range: normal " + normalShards + ", high " + highShards);
        }
        this.normalShards = normalShards;
        this.highShards = highShards;
        this.normal = new Lane("normal", Priority.NORMAL, null, 0, normalShards);
        this.high = new Lane("high", Priority.HIGH, null, normalShards, highShards);
        List<Lane> lanes = new ArrayList<>(List.of(normal, high));
        List<TenantLane> sorted = new ArrayList<>(tenantLanes);
        sorted.sort((a, b) -> Integer.compare(a.firstShard(), b.firstShard()));
        int next = normalShards + highShards;
        for (TenantLane t : sorted) {
            if (t.firstShard() != next
                    || t.shards() <= 0
                    || t.tenant() == null
                    || t.tenant().isEmpty()) {
                throw new IllegalArgumentException("tenant lane " + t + " does not follow shard " + (next - 1));
            }
            Lane lane =
                    new Lane(Lane.TENANT_PREFIX + t.tenant(), Priority.NORMAL, t.tenant(), t.firstShard(), t.shards());
            if (byTenant.put(t.tenant(), lane) != null) {
                throw new IllegalArgumentException("two lanes for tenant " + t.tenant());
            }
            lanes.add(lane);
            next += t.shards();
        }
        if (next > Short.MAX_VALUE) {
            throw new IllegalArgumentException("more shards than a smallint holds: " + next);
        }
        this.all = List.copyOf(lanes);
        this.byShard = new Lane[next];
        for (Lane lane : all) {
            for (int s = lane.firstShard(); s < lane.firstShard() + lane.shards(); s++) {
                byShard[s] = lane;
            }
        }
    }

    public int normalShards() {
        return normalShards;
    }

    public int highShards() {
        return highShards;
    }

    public Lane normal() {
        return normal;
    }

    public Lane high() {
        return high;
    }

    /** Every lane: normal, high, then the tenant lanes by their first shard. */
    public List<Lane> all() {
        return all;
    }

    /** The tenant lanes as placed. */
    public List<TenantLane> tenantLanes() {
        return all.stream()
                .filter(Lane::isTenant)
                .map(l -> new TenantLane(l.tenant(), l.firstShard(), l.shards()))
                .toList();
    }

    /** Every shard, every lane: the pollers' leases cover {@code 0 .. total()-1}. */
    public int total() {
        return byShard.length;
    }

    /** The shard a new message of {@code priority} goes to, with no tenant lane (a fixed function of its id). */
    public short shardOf(UUID messageId, Priority priority) {
        return shardOf(messageId, priority, null);
    }

    /**
     * The shard a new message goes to: the high lane for {@code high}; the tenant's lane for a tenant that has one; else
     * the normal lane. A fixed function of the id within the lane.
     */
    public short shardOf(UUID messageId, Priority priority, String tenant) {
        Lane lane = priority == Priority.HIGH ? high : tenant == null ? normal : byTenant.getOrDefault(tenant, normal);
        return (short) (lane.firstShard() + Shards.of(messageId, lane.shards()));
    }

    /** The lane of a stored shard. */
    public Lane laneOf(short shard) {
        if (shard < 0 || shard >= byShard.length) {
            throw new IllegalArgumentException("no shard " + shard + " among " + byShard.length);
        }
        return byShard[shard];
    }

    /** The priority of a stored shard's lane (a tenant lane is normal priority). */
    public Priority priorityOf(short shard) {
        return laneOf(shard).priority();
    }

    /** The tenant's lane, if it has one. */
    public java.util.Optional<Lane> ofTenant(String tenant) {
        return java.util.Optional.ofNullable(byTenant.get(tenant));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Lanes other
                && normalShards == other.normalShards
                && highShards == other.highShards
                && tenantLanes().equals(other.tenantLanes());
    }

    @Override
    public int hashCode() {
        return normalShards * 31 + highShards;
    }

    @Override
    public String toString() {
        return "Lanes" + all;
    }
}
