package dev.sendlog.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.InstantSource;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class LanesTest {
    private final Lanes lanes = new Lanes(16, 2);

    @Test
    void normalMessagesKeepTheShardTheyHadBeforeLanesExisted() {
        MessageIds ids = new MessageIds(InstantSource.fixed(Instant.parse("2026-12-02T00:00:00Z")));
        for (int i = 0; i < 10_000; i++) {
            UUID id = ids.next();
            assertThat(lanes.shardOf(id, Priority.NORMAL)).isEqualTo(Shards.of(id, 16));
        }
    }

    @Test
    void highMessagesSpreadOverTheHighShardsOnlyAndEachShardTellsItsLane() {
        MessageIds ids = new MessageIds(InstantSource.fixed(Instant.parse("2026-12-02T00:00:00Z")));
        Set<Short> high = new HashSet<>();
        Set<Short> normal = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            UUID id = ids.next();
            high.add(lanes.shardOf(id, Priority.HIGH));
            normal.add(lanes.shardOf(id, Priority.NORMAL));
        }
        assertThat(high).containsExactlyInAnyOrder((short) 16, (short) 17);
        assertThat(normal).hasSize(16).allMatch(s -> s >= 0 && s < 16);
        high.forEach(s -> assertThat(lanes.priorityOf(s)).isEqualTo(Priority.HIGH));
        normal.forEach(s -> assertThat(lanes.priorityOf(s)).isEqualTo(Priority.NORMAL));
        assertThat(lanes.total()).isEqualTo(18);
    }

    @Test
    void onlyTheApiSpellingsNameAPriority() {
        assertThat(Priority.fromWire("high")).contains(Priority.HIGH);
        assertThat(Priority.fromWire("normal")).contains(Priority.NORMAL);
        assertThat(Priority.fromWire("HIGH")).isEmpty();
        assertThat(Priority.fromWire("urgent")).isEmpty();
        assertThat(Priority.fromWire("")).isEmpty();
    }

    @Test
    void aShardOutsideBothLanesOrALaneWithoutShardsIsRefused() {
        assertThatThrownBy(() -> lanes.priorityOf((short) 18)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Lanes(16, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aTenantWithALaneHasItsNormalMessagesInItsOwnShardsAndHighOnesStayInTheHighLane() {
        Lanes withTenants =
                new Lanes(16, 2, List.of(new Lanes.TenantLane("b", 18, 2), new Lanes.TenantLane("c", 20, 3)));
        MessageIds ids = new MessageIds(InstantSource.fixed(Instant.parse("2026-12-06T00:00:00Z")));
        Set<Short> b = new HashSet<>();
        Set<Short> c = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            UUID id = ids.next();
            b.add(withTenants.shardOf(id, Priority.NORMAL, "b"));
            c.add(withTenants.shardOf(id, Priority.NORMAL, "c"));
            assertThat(withTenants.shardOf(id, Priority.NORMAL, "a"))
                    .as("a tenant without a lane")
                    .isEqualTo(Shards.of(id, 16));
            assertThat(withTenants.shardOf(id, Priority.HIGH, "b")).isBetween((short) 16, (short) 17);
        }
        assertThat(b).containsExactlyInAnyOrder((short) 18, (short) 19);
        assertThat(c).containsExactlyInAnyOrder((short) 20, (short) 21, (short) 22);
        assertThat(withTenants.total()).isEqualTo(23);
        assertThat(withTenants.laneOf((short) 19).tenant()).isEqualTo("b");
        assertThat(withTenants.laneOf((short) 22).name()).isEqualTo("tenant-c");
        assertThat(withTenants.priorityOf((short) 20))
                .as("a tenant lane is normal priority")
                .isEqualTo(Priority.NORMAL);
        assertThat(withTenants.laneOf((short) 17)).isEqualTo(withTenants.high());
        assertThat(withTenants.all())
                .extracting(Lanes.Lane::name)
                .containsExactly("normal", "high", "tenant-b", "tenant-c");
    }

    @Test
    void tenantLanesMustFollowTheHighLaneWithoutGapsOrOverlaps() {
        assertThatThrownBy(() -> new Lanes(16, 2, List.of(new Lanes.TenantLane("b", 19, 2))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() ->
                        new Lanes(16, 2, List.of(new Lanes.TenantLane("b", 18, 2), new Lanes.TenantLane("c", 19, 2))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() ->
                        new Lanes(16, 2, List.of(new Lanes.TenantLane("b", 18, 2), new Lanes.TenantLane("b", 20, 2))))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
