package dev.sendlog.service.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.codahale.metrics.MetricRegistry;
import dev.sendlog.service.log.LeaseLostException;
import dev.sendlog.testkit.TestDatabaseExtension;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Pollers share the shards by lease, take over a dead one's, and the epoch fences out a poller that lost its lease. */
class ShardLeasesTest {
    @RegisterExtension
    static final TestDatabaseExtension DB = new TestDatabaseExtension();

    private static final int SHARDS = 8;

    @BeforeEach
    void noPollerYet() {
        DSLContext dsl = DSL.using(DB.dataSource(), SQLDialect.POSTGRES);
        dsl.execute("DELETE FROM pollers");
        dsl.execute("DELETE FROM shard_leases");
    }

    private static ShardLeases poller(String owner, Duration ttl) {
        DSLContext dsl = DSL.using(DB.dataSource(), SQLDialect.POSTGRES);
        return new ShardLeases(dsl, owner, SHARDS, ttl, new MetricRegistry());
    }

    @Test
    void twoPollersSplitTheShardsAndTheOneLeftTakesOverTheDeadOnesShards() {
        ShardLeases a = poller("poller-a", Duration.ofSeconds(2));
        ShardLeases b = poller("poller-b", Duration.ofSeconds(2));
        a.init();
        a.refresh();
        assertThat(a.owned()).hasSize(SHARDS);

        b.refresh(); // b is live now, but a's leases are valid: nothing to take yet
        a.refresh(); // a sees two pollers and gives back what is above its share
        b.refresh(); // b takes the free shards
        assertThat(a.owned()).hasSize(SHARDS / 2);
        assertThat(b.owned()).hasSize(SHARDS / 2);
        Set<Short> union = new HashSet<>(a.owned().keySet());
        union.addAll(b.owned().keySet());
        assertThat(union).hasSize(SHARDS);
        assertThat(a.owned().keySet()).doesNotContainAnyElementsOf(b.owned().keySet());

        // a stops renewing (killed): once its leases expire, b takes everything, each with a new epoch.
        var aLeases = a.owned();
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> {
                    b.refresh();
                    assertThat(b.owned()).hasSize(SHARDS);
                });
        aLeases.forEach(
                (shard, lease) -> assertThat(b.owned().get(shard).epoch()).isGreaterThan(lease.epoch()));
    }

    @Test
    void aPollerThatLostItsLeaseCannotMoveTheCursorOfTheNewOwner() {
        ShardLeases old = poller("poller-old", Duration.ofSeconds(1));
        old.init();
        old.refresh();
        ShardLease stale = old.owned().values().iterator().next();
        DSLContext dsl = DSL.using(DB.dataSource(), SQLDialect.POSTGRES);
        ShardLeases.writePublishCursor(dsl, "poller-old", stale, new TailCursor(10, 10));

        ShardLeases fresh = poller("poller-new", Duration.ofSeconds(1));
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> {
                    fresh.refresh();
                    assertThat(fresh.owned()).containsKey(stale.shard());
                });
        ShardLease current = fresh.owned().get(stale.shard());
        assertThat(current.epoch()).isGreaterThan(stale.epoch());
        assertThat(current.publishCursor()).isEqualTo(new TailCursor(10, 10));

        // The old owner wakes up from its pause and tries to write with its old epoch: refused.
        assertThatThrownBy(() -> ShardLeases.writePublishCursor(dsl, "poller-old", stale, new TailCursor(99, 99)))
                .isInstanceOf(LeaseLostException.class);
        ShardLeases.writePublishCursor(dsl, "poller-new", current, new TailCursor(20, 20));
        assertThat(dsl.fetchValue("SELECT publish_xid FROM shard_leases WHERE shard = " + stale.shard()))
                .isEqualTo(20L);
    }

    @Test
    void aBatchsCursorsMoveTogetherOrNotAtAllWhenOneOfItsLeasesIsStale() {
        ShardLeases owner = poller("poller-a", Duration.ofSeconds(30));
        owner.init();
        owner.refresh();
        List<ShardLease> held = List.copyOf(owner.owned().values());
        DSLContext dsl = DSL.using(DB.dataSource(), SQLDialect.POSTGRES);
        Map<ShardLease, TailCursor> all = new LinkedHashMap<>();
        held.forEach(l -> all.put(l, new TailCursor(100 + l.shard(), 7)));
        dsl.transaction(cfg -> ShardLeases.writePublishCursors(cfg.dsl(), "poller-a", all));
        for (ShardLease l : held) {
            assertThat(dsl.fetchValue("SELECT publish_xid FROM shard_leases WHERE shard = " + l.shard()))
                    .isEqualTo(100L + l.shard());
        }

        // One lease of the batch taken over meanwhile (a new epoch): the statement moves the others, the caller's
        // transaction rolls back on the exception, and no cursor of the batch has moved.
        ShardLease taken = held.get(3);
        dsl.execute("UPDATE shard_leases SET epoch = epoch + 1 WHERE shard = " + taken.shard());
        Map<ShardLease, TailCursor> next = new LinkedHashMap<>();
        held.forEach(l -> next.put(l, new TailCursor(500, 7)));
        assertThatThrownBy(() -> dsl.transaction(cfg -> ShardLeases.writePublishCursors(cfg.dsl(), "poller-a", next)))
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("lease of shard " + taken.shard() + " ");
        for (ShardLease l : held) {
            assertThat(dsl.fetchValue("SELECT publish_xid FROM shard_leases WHERE shard = " + l.shard()))
                    .isEqualTo(100L + l.shard());
        }
    }

    @Test
    void sharesAreEvenAndAddUpToTheShardCountWhateverThePollerCount() {
        for (int shards = 1; shards <= 64; shards++) {
            for (int pollers = 1; pollers <= 9; pollers++) {
                List<String> live =
                        IntStream.range(0, pollers).mapToObj(i -> "poller-" + i).toList();
                int total = 0;
                int min = Integer.MAX_VALUE;
                int max = 0;
                for (String owner : live) {
                    int share = ShardLeases.share(shards, live, owner);
                    total += share;
                    min = Math.min(min, share);
                    max = Math.max(max, share);
                }
                assertThat(total).as("%d shards on %d pollers", shards, pollers).isEqualTo(shards);
                assertThat(max - min)
                        .as("%d shards on %d pollers", shards, pollers)
                        .isLessThanOrEqualTo(1);
            }
        }
        assertThat(List.of("a", "b", "c").stream()
                        .map(o -> ShardLeases.share(16, List.of("a", "b", "c"), o))
                        .toList())
                .containsExactly(6, 5, 5);
    }

    @Test
    void threePollersSettleOnSixFiveAndFiveOfSixteenShards() {
        DSLContext dsl = DSL.using(DB.dataSource(), SQLDialect.POSTGRES);
        List<ShardLeases> pollers = List.of("p-a", "p-b", "p-c").stream()
                .map(o -> new ShardLeases(dsl, o, 16, Duration.ofSeconds(30), new MetricRegistry()))
                .toList();
        pollers.get(0).init();
        for (int round = 0; round < 4; round++) {
            pollers.forEach(ShardLeases::refresh);
        }
        assertThat(pollers.stream().map(p -> p.owned().size()).toList()).containsExactly(6, 5, 5);
        Set<Short> union = new HashSet<>();
        pollers.forEach(p -> union.addAll(p.owned().keySet()));
        assertThat(union).hasSize(16);
    }

    @Test
    void aFrozenOwnerHoldingALeaseRowLockDoesNotKeepTheShardFromTheNextOwner() throws Exception {
        ShardLeases frozen = poller("poller-frozen", Duration.ofSeconds(1));
        frozen.init();
        frozen.refresh();
        ShardLease held = frozen.owned().values().iterator().next();
        try (java.sql.Connection c = DB.dataSource().getConnection()) {
            c.setAutoCommit(false);
            DSLContext tx = DSL.using(c, SQLDialect.POSTGRES);
            frozen.boundLockHold(tx);
            ShardLeases.writePublishCursor(tx, "poller-frozen", held, new TailCursor(5, 5));
            // ...and the process freezes here, its transaction open, the lease row locked.

            ShardLeases next = poller("poller-next", Duration.ofSeconds(1));
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(100))
                    .untilAsserted(() -> {
                        next.refresh();
                        assertThat(next.owned()).containsKey(held.shard());
                    });
            assertThat(next.owned().get(held.shard()).publishCursor())
                    .as("the frozen write never committed")
                    .isEqualTo(new TailCursor(0, 0));
            assertThatThrownBy(c::commit)
                    .as("the server ended the frozen transaction")
                    .isInstanceOf(java.sql.SQLException.class);
        }
    }
}
