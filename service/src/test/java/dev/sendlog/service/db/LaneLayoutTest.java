package dev.sendlog.service.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sendlog.events.Lanes;
import dev.sendlog.testkit.TestDatabaseExtension;
import java.util.List;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The lanes' layout as the database keeps it (issue 29): a stored shard never changes lane, whatever the configuration
 * of a later start says.
 */
class LaneLayoutTest {
    @RegisterExtension
    static final TestDatabaseExtension DB = new TestDatabaseExtension();

    private DSLContext dsl;

    @BeforeEach
    void emptyLayout() {
        dsl = DSL.using(DB.dataSource(), SQLDialect.POSTGRES);
        dsl.execute("DELETE FROM lanes");
    }

    @Test
    void theFirstStartWritesItsLanesAndATenantGivenAWeightLaterIsAppended() {
        Lanes first = LaneLayout.load(dsl, 16, 2, List.of("b"), 2);
        assertThat(first.tenantLanes()).containsExactly(new Lanes.TenantLane("b", 18, 2));
        Lanes later = LaneLayout.load(dsl, 16, 2, List.of("c", "b"), 3);
        assertThat(later.tenantLanes())
                .as("b keeps its shards; c comes after them")
                .containsExactly(new Lanes.TenantLane("b", 18, 2), new Lanes.TenantLane("c", 20, 3));
    }

    @Test
    void aTenantWhoseWeightIsRemovedKeepsItsLaneSoItsShardsAreStillServed() {
        LaneLayout.load(dsl, 16, 2, List.of("b"), 2);
        Lanes without = LaneLayout.load(dsl, 16, 2, List.of(), 2);
        assertThat(without.tenantLanes()).containsExactly(new Lanes.TenantLane("b", 18, 2));
        assertThat(without.total()).isEqualTo(20);
    }

    @Test
    void aChangeThatWouldMoveAStoredShardIsRefusedAndMoreHighShardsAreTakenOnlyBeforeTenantLanes() {
        LaneLayout.load(dsl, 16, 2, List.of(), 2);
        assertThatThrownBy(() -> LaneLayout.load(dsl, 8, 2, List.of(), 2))
                .hasMessageContaining("pipeline.shards is 8")
                .hasMessageContaining("set it back to 16");
        assertThat(LaneLayout.load(dsl, 16, 4, List.of(), 2).highShards())
                .as("adding high shards is safe")
                .isEqualTo(4);
        LaneLayout.load(dsl, 16, 4, List.of("b"), 2);
        assertThatThrownBy(() -> LaneLayout.load(dsl, 16, 6, List.of("b"), 2))
                .hasMessageContaining("pipeline.highShards is 6")
                .hasMessageContaining("tenant lanes after them");
        assertThat(LaneLayout.load(dsl, 16, 4, List.of("b"), 2).tenantLanes())
                .containsExactly(new Lanes.TenantLane("b", 20, 2));
    }
}
