package dev.sendlog.service.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.codahale.metrics.MetricRegistry;
import dev.sendlog.testkit.TestDatabaseExtension;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
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

        b.refresh();   // b is live now, but a's leases are valid: nothing to take yet
        a.refresh();   // a sees two pollers and gives back what is above its share
        b.refresh();   // b takes the free shards
        assertThat(a.owned()).hasSize(SHARDS / 2);
        assertThat(b.owned()).hasSize(SHARDS / 2);
        Set<Short> union = new HashSet<>(a.owned().keySet());
        union.addAll(b.owned().keySet());
        assertThat(union).hasSize(SHARDS);
        assertThat(a.owned().keySet()).doesNotContainAnyElementsOf(b.owned().keySet());

        // a stops renewing (killed): once its leases expire, b takes everything, each with a new epoch.
        var aLeases = a.owned();
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            b.refresh();
            assertThat(b.owned()).hasSize(SHARDS);
        });
        aLeases.forEach((shard, lease) -> assertThat(b.owned().get(shard).epoch()).isGreaterThan(lease.epoch()));
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
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
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
        assertThat(dsl.fetchValue("SELECT publish_xid FROM shard_leases WHERE shard = " + stale.shard())).isEqualTo(20L);
    }
}
