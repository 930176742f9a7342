package dev.sendlog.service.health;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sendlog.service.support.ServiceHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionContext;

/** Invariant 14: a configuration whose pools cannot fit in max_connections is refused at start-up, with the sum. */
class PoolBudgetTest {
    @Test
    void poolsLargerThanTheServerAllowsAreRefusedWithTheSumShown() {
        ServiceHarness oversized = new ServiceHarness("database.pools.api", "400", "database.pools.pipeline", "200");
        try {
            assertThatThrownBy(() -> oversized.beforeAll((ExtensionContext) null))
                    .hasStackTraceContaining("refusing to start: the pools cannot fit")
                    .hasStackTraceContaining("api 400 + pipeline 200")
                    .hasStackTraceContaining("of max_connections");
        } finally {
            oversized.afterAll(null);
        }
    }
}
