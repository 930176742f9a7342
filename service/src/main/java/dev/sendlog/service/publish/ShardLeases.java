package dev.sendlog.service.publish;

import static dev.sendlog.schema.jooq.Tables.POLLERS;
import static dev.sendlog.schema.jooq.Tables.SHARD_LEASES;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import dev.sendlog.schema.jooq.tables.records.ShardLeasesRecord;
import dev.sendlog.service.log.LeaseLostException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shard ownership by lease. Each poller takes its fair share of the free or expired shards, renews what it
 * holds at a third of the lease time, and gives back what is above its share so a newcomer can take it. The
 * shares are even: with {@code S} shards and {@code L} live pollers, every poller's share is {@code S / L}, and
 * the first {@code S % L} pollers in name order take one more (16 shards on 3 pollers: 6, 5, 5). Every take increments the shard's epoch; writes of a shard's
 * owner are fenced by (owner, epoch) so a poller that lost its lease (a long pause) cannot write over the
 * new owner. Times are the database's, so processes on different hosts agree.
 */
public final class ShardLeases {
    private static final Logger LOG = LoggerFactory.getLogger(ShardLeases.class);

    /** The database's clock: lease times are compared on one clock, whatever the hosts' clocks say. */
    private static final Field<java.time.Instant> NOW = DSL.field("now()", java.time.Instant.class);

    private final DSLContext dsl;
    private final String owner;
    private final int shardCount;
    private final Duration ttl;
    private final Counter leasesLost;
    private volatile Map<Short, ShardLease> owned = Map.of();

    public ShardLeases(DSLContext dsl, String owner, int shardCount, Duration ttl, MetricRegistry metrics) {
        this.dsl = dsl;
        this.owner = owner;
        this.shardCount = shardCount;
        this.ttl = ttl;
        metrics.registerGauge("poller.shards.owned", () -> owned.size());
        this.leasesLost = metrics.counter("poller.leases.lost");
    }

    public String owner() {
        return owner;
    }

    /** The shards held now (a snapshot; a round works on the shards it started with). */
    public Map<Short, ShardLease> owned() {
        return owned;
    }

    /** Creates the lease rows once per database. */
    public void init() {
        dsl.insertInto(SHARD_LEASES, SHARD_LEASES.SHARD)
                .select(DSL.select(DSL.field("s", SQLDataType.SMALLINT))
                        .from(DSL.table("generate_series(0, " + (shardCount - 1) + ") AS g(s)")))
                .onConflictDoNothing()
                .execute();
    }

    /** Heartbeat, renew, take the fair share, give back the surplus. Run every {@code ttl / 3}. */
    public synchronized void refresh() {
        Field<java.time.Instant> now = NOW;
        Field<java.time.Instant> expiry =
                DSL.field("now() + ({0} * interval '1 millisecond')", java.time.Instant.class, DSL.val(ttl.toMillis()));
        dsl.insertInto(POLLERS)
                .set(POLLERS.OWNER, owner)
                .set(POLLERS.HEARTBEAT_AT, now)
                .onConflict(POLLERS.OWNER)
                .doUpdate()
                .set(POLLERS.HEARTBEAT_AT, now)
                .execute();

        Map<Short, ShardLease> next = new TreeMap<>();
        // Rows are locked in shard order, as the poller's cursor writes lock them: no deadlock.
        var mine = DSL.select(SHARD_LEASES.SHARD)
                .from(SHARD_LEASES)
                .where(SHARD_LEASES.OWNER.eq(owner))
                .orderBy(SHARD_LEASES.SHARD)
                .forUpdate();
        for (ShardLeasesRecord r : dsl.update(SHARD_LEASES)
                .set(SHARD_LEASES.EXPIRES_AT, expiry)
                .set(SHARD_LEASES.RENEWED_AT, now)
                .where(SHARD_LEASES.SHARD.in(mine))
                .returning()
                .fetch()) {
            next.put(r.getShard(), lease(r));
        }

        List<String> live = dsl.select(POLLERS.OWNER)
                .from(POLLERS)
                .where(POLLERS.HEARTBEAT_AT.gt(DSL.field(
                        "now() - ({0} * interval '1 millisecond')", java.time.Instant.class, DSL.val(ttl.toMillis()))))
                .orderBy(POLLERS.OWNER)
                .fetch(POLLERS.OWNER);
        int share = share(shardCount, live, owner);

        if (next.size() < share) {
            var free = dsl.select(SHARD_LEASES.SHARD)
                    .from(SHARD_LEASES)
                    .where(SHARD_LEASES.OWNER.isNull().or(SHARD_LEASES.EXPIRES_AT.lt(now)))
                    // Only shards this process knows: a lane appended since it started (issue 29) is taken by the
                    // processes started after it, which know which lane its shards are.
                    .and(SHARD_LEASES.SHARD.lt((short) shardCount))
                    .orderBy(SHARD_LEASES.SHARD)
                    .limit(share - next.size())
                    .forUpdate()
                    .skipLocked();
            for (ShardLeasesRecord r : dsl.update(SHARD_LEASES)
                    .set(SHARD_LEASES.OWNER, owner)
                    .set(SHARD_LEASES.EPOCH, SHARD_LEASES.EPOCH.plus(1))
                    .set(SHARD_LEASES.EXPIRES_AT, expiry)
                    .set(SHARD_LEASES.RENEWED_AT, now)
                    .where(SHARD_LEASES.SHARD.in(free))
                    .returning()
                    .fetch()) {
                next.put(r.getShard(), lease(r));
                LOG.info("shard taken shard={} epoch={} owner={}", r.getShard(), r.getEpoch(), owner);
            }
        } else if (next.size() > share) {
            List<Short> surplus = new ArrayList<>(next.keySet()).subList(share, next.size());
            List<Short> released = new ArrayList<>(surplus);
            // Stop using them first; an in-flight round's fenced write fails once the row changes owner.
            released.forEach(next::remove);
            owned = Collections.unmodifiableMap(next);
            dsl.update(SHARD_LEASES)
                    .setNull(SHARD_LEASES.OWNER)
                    .set(SHARD_LEASES.EXPIRES_AT, now)
                    .where(SHARD_LEASES.SHARD.in(released))
                    .and(SHARD_LEASES.OWNER.eq(owner))
                    .execute();
            LOG.info(
                    "shards released for rebalancing shards={} owner={} share={} live={}",
                    released,
                    owner,
                    share,
                    live.size());
        }
        owned = Collections.unmodifiableMap(next);
        dsl.deleteFrom(POLLERS)
                .where(POLLERS.HEARTBEAT_AT.lt(DSL.field(
                        "now() - ({0} * interval '1 millisecond')",
                        java.time.Instant.class, DSL.val(ttl.toMillis() * 20))))
                .execute();
    }

    /**
     * A poller's even share: {@code shards / live}, one more for the first {@code shards % live} live pollers in
     * name order. Every poller computes it from the same table, so the shares add up to the shard count.
     */
    static int share(int shardCount, List<String> liveOwners, String owner) {
        int live = Math.max(1, liveOwners.size());
        int rank = liveOwners.indexOf(owner);
        if (rank < 0) {
            // Not yet visible as live (its heartbeat is not committed): the largest share, as the first refresh did.
            return (shardCount + live - 1) / live;
        }
        return shardCount / live + (rank < shardCount % live ? 1 : 0);
    }

    /** Forgets a shard whose fenced write failed; the next refresh learns who holds it. */
    public synchronized void lost(short shard) {
        Map<Short, ShardLease> next = new TreeMap<>(owned);
        if (next.remove(shard) != null) {
            leasesLost.inc();
            LOG.warn("shard lost shard={} owner={}", shard, owner);
        }
        owned = Collections.unmodifiableMap(next);
    }

    /** Records a cursor advanced in a committed transaction, so the next round starts after it. */
    public synchronized void advanced(short shard, TailCursor publish) {
        ShardLease l = owned.get(shard);
        if (l == null) {
            return;
        }
        Map<Short, ShardLease> next = new TreeMap<>(owned);
        next.put(shard, new ShardLease(shard, l.epoch(), publish));
        owned = Collections.unmodifiableMap(next);
    }

    /**
     * Whether a shard has no owner: given back by a poller that stopped (or above its share), for the others to take
     * now rather than at their next renewal a third of the lease time later. One look at a table of a row per shard.
     */
    public boolean unownedShard() {
        return dsl.fetchExists(SHARD_LEASES, SHARD_LEASES.OWNER.isNull());
    }

    /** Gives every shard back at shutdown, so others take them at once instead of after the lease time. */
    public synchronized void releaseAll() {
        owned = Map.of();
        dsl.update(SHARD_LEASES)
                .setNull(SHARD_LEASES.OWNER)
                .set(SHARD_LEASES.EXPIRES_AT, NOW)
                .where(SHARD_LEASES.OWNER.eq(owner))
                .execute();
        dsl.deleteFrom(POLLERS).where(POLLERS.OWNER.eq(owner)).execute();
        LOG.info("all shards released owner={}", owner);
    }

    private static ShardLease lease(ShardLeasesRecord r) {
        return new ShardLease(r.getShard(), r.getEpoch(), new TailCursor(r.getPublishXid(), r.getPublishPosition()));
    }

    /**
     * Called first in every transaction that writes a cursor (and so locks lease rows). A process frozen while it
     * holds such a lock (a long pause, SIGSTOP, a stalled VM) would keep the shard from its next owner forever,
     * because takers skip locked rows: the server ends such a transaction once it has been idle for a third of
     * the lease, so the shard moves within the lease time plus that.
     */
    public void boundLockHold(DSLContext tx) {
        String sql = "SET LOCAL idle_in_transaction_session_timeout = " + Math.max(200, ttl.toMillis() / 3);
        // Plain JDBC, as the cursors below: jOOQ's plain-SQL path costs more CPU than the statement, once per batch.
        tx.connection(c -> {
            try (java.sql.Statement st = c.createStatement()) {
                st.execute(sql);
            }
        });
    }

    /** A fenced cursor write: only the owner at this epoch may move it. Throws {@link LeaseLostException} otherwise. */
    public static void writePublishCursor(DSLContext tx, String owner, ShardLease lease, TailCursor cursor) {
        writePublishCursors(tx, owner, Map.of(lease, cursor));
    }

    private static final String CURSORS_SQL = """
            UPDATE shard_leases l SET publish_xid = c.xid, publish_position = c.position
            FROM unnest(?::int2[], ?::int8[], ?::int8[], ?::int8[]) AS c(shard, epoch, xid, position)
            WHERE l.shard = c.shard AND l.epoch = c.epoch AND l.owner = ?
            RETURNING l.shard""";

    /**
     * The cursors of a batch's shards in one fenced statement (a poller batch moves up to every shard it owns: one
     * UPDATE each took 3% of the service's CPU samples in a JFR profile of scripts/bench at C=16). Throws
     * {@link LeaseLostException} naming a shard this owner no longer holds at its epoch; the caller's transaction then
     * rolls back, so no cursor of the batch moves.
     */
    public static void writePublishCursors(DSLContext tx, String owner, Map<ShardLease, TailCursor> cursors) {
        if (cursors.isEmpty()) {
            return;
        }
        List<ShardLease> leases = new ArrayList<>(cursors.keySet());
        Short[] shards = leases.stream().map(ShardLease::shard).toArray(Short[]::new);
        Long[] epochs = leases.stream().map(ShardLease::epoch).toArray(Long[]::new);
        Long[] xids = leases.stream().map(l -> cursors.get(l).xid()).toArray(Long[]::new);
        Long[] positions = leases.stream().map(l -> cursors.get(l).position()).toArray(Long[]::new);
        // Plain JDBC: through jOOQ's plain-SQL resultQuery this statement was 2% of the service's CPU samples (JFR,
        // scripts/bench at C=16, 2026-12-07), nearly all of it jOOQ's own rendering and record mapping.
        java.util.Set<Short> written = new java.util.HashSet<>();
        tx.connection(c -> {
            try (PreparedStatement ps = c.prepareStatement(CURSORS_SQL)) {
                ps.setArray(1, c.createArrayOf("int2", shards));
                ps.setArray(2, c.createArrayOf("int8", epochs));
                ps.setArray(3, c.createArrayOf("int8", xids));
                ps.setArray(4, c.createArrayOf("int8", positions));
                ps.setString(5, owner);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        written.add(rs.getShort(1));
                    }
                }
            }
        });
        for (ShardLease lease : leases) {
            if (!written.contains(lease.shard())) {
                throw new LeaseLostException(lease.shard(), lease.epoch());
            }
        }
    }
}
