package dev.sendlog.service.db;

import dev.sendlog.events.Lanes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.Record3;
import org.jooq.impl.DSL;

/**
 * The lanes' shard layout (issue 29), kept in the table {@code lanes} so that a stored shard never changes lane. At
 * start, in one transaction that holds the table against other processes starting at the same time:
 *
 * <ul>
 *   <li>an empty table takes the normal and high lanes of the configuration;</li>
 *   <li>a normal shard count other than the stored one is refused (every normal message's shard would change lane);
 *       so is a high count other than the stored one once tenant lanes exist; before that, more high shards are
 *       written (adding them is safe, as it was);</li>
 *   <li>each tenant with a weight and no lane yet gets {@code tenantShards} shards after the last lane's;</li>
 *   <li>a tenant lane in the table whose tenant no longer has a weight stays a lane: its shards may hold messages.</li>
 * </ul>
 */
public final class LaneLayout {
    /** The channel an accept holding a high message notifies (NOTIFY), for the high lane's pollers (LISTEN). */
    public static final String HIGH_WORK_CHANNEL = "sendlog_high_work";

    private static final String NORMAL = "normal";
    private static final String HIGH = "high";

    private LaneLayout() {}

    /** The layout after adding the configured lanes it lacks; refuses a configuration that would move a stored shard. */
    public static Lanes load(
            DSLContext dsl, int normalShards, int highShards, List<String> weightedTenants, int tenantShards) {
        return dsl.transactionResult(tx -> {
            DSLContext t = tx.dsl();
            t.execute("LOCK TABLE lanes IN EXCLUSIVE MODE");
            Map<String, int[]> stored = new LinkedHashMap<>();
            for (Record3<String, Short, Short> r : t.select(
                            DSL.field("lane", String.class),
                            DSL.field("first_shard", Short.class),
                            DSL.field("shards", Short.class))
                    .from(DSL.table("lanes"))
                    .orderBy(DSL.field("first_shard"))
                    .fetch()) {
                stored.put(r.value1(), new int[] {r.value2(), r.value3()});
            }
            boolean tenantLanes = stored.keySet().stream().anyMatch(l -> l.startsWith(Lanes.Lane.TENANT_PREFIX));
            if (stored.isEmpty()) {
                insert(t, NORMAL, 0, normalShards);
                insert(t, HIGH, normalShards, highShards);
                stored.put(NORMAL, new int[] {0, normalShards});
                stored.put(HIGH, new int[] {normalShards, highShards});
            } else {
                int[] normal = stored.get(NORMAL);
                int[] high = stored.get(HIGH);
                if (normal == null || high == null || normal[0] != 0 || high[0] != normal[1]) {
                    throw new IllegalStateException(
                            "the lanes table lacks its normal or high lane: " + describe(stored));
                }
                if (normal[1] != normalShards) {
                    throw new IllegalStateException(
                            "pipeline.shards is " + normalShards + " but this database's messages" + " were placed on "
                                    + normal[1] + " normal shards; set it back to " + normal[1]);
                }
                if (high[1] != highShards) {
                    if (tenantLanes || highShards < high[1]) {
                        throw new IllegalStateException(
                                "pipeline.highShards is " + highShards + " but this database has "
                                        + high[1] + (tenantLanes ? " with tenant lanes after them" : "")
                                        + "; set it back to " + high[1]);
                    }
                    t.execute("UPDATE lanes SET shards = ? WHERE lane = ?", (short) highShards, HIGH);
                    high[1] = highShards;
                }
            }
            int next = stored.values().stream().mapToInt(r -> r[0] + r[1]).max().orElseThrow();
            for (String tenant : weightedTenants) {
                String name = Lanes.Lane.TENANT_PREFIX + tenant;
                if (!stored.containsKey(name)) {
                    insert(t, name, next, tenantShards);
                    stored.put(name, new int[] {next, tenantShards});
                    next += tenantShards;
                }
            }
            List<Lanes.TenantLane> lanes = new ArrayList<>();
            stored.forEach((name, r) -> {
                if (name.startsWith(Lanes.Lane.TENANT_PREFIX)) {
                    lanes.add(new Lanes.TenantLane(name.substring(Lanes.Lane.TENANT_PREFIX.length()), r[0], r[1]));
                }
            });
            return new Lanes(stored.get(NORMAL)[1], stored.get(HIGH)[1], lanes);
        });
    }

    private static void insert(DSLContext t, String lane, int firstShard, int shards) {
        t.execute("INSERT INTO lanes (lane, first_shard, shards) VALUES (?, ?, ?)", lane, (short) firstShard, (short)
                shards);
    }

    private static String describe(Map<String, int[]> stored) {
        StringBuilder s = new StringBuilder();
        stored.forEach((k, v) ->
                s.append(k).append('=').append(v[0]).append('+').append(v[1]).append(' '));
        return s.toString().trim();
    }
}
