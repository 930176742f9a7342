package dev.sendlog.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.sendlog.infra.PostgresEndpoint;
import java.sql.SQLException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.testkit.engine.EngineTestKit;

class TestDatabaseExtensionTest {
    @Test
    void oneDatabaseServesEveryTestOfTheClassAndIsDroppedAfterTheLast() throws SQLException {
        ExtensionProbe.NAMES_SEEN.clear();

        EngineTestKit.engine("junit-jupiter")
                .selectors(selectClass(ExtensionProbe.class))
                .execute()
                .testEvents()
                .assertStatistics(stats -> stats.started(2).succeeded(2));

        assertThat(ExtensionProbe.NAMES_SEEN).hasSize(1);
        String name = ExtensionProbe.NAMES_SEEN.iterator().next();
        PostgresEndpoint cluster = TestPostgres.endpoint();
        assertThat(TestDatabaseTest.databaseExists(cluster, name)).isFalse();
    }

    /** Run only through the engine above (surefire skips nested classes). */
    static class ExtensionProbe {
        static final Set<String> NAMES_SEEN = ConcurrentHashMap.newKeySet();

        @RegisterExtension
        static final TestDatabaseExtension DB = new TestDatabaseExtension();

        @Test
        void first() throws SQLException {
            see();
        }

        @Test
        void second() throws SQLException {
            see();
        }

        private static void see() throws SQLException {
            NAMES_SEEN.add(DB.database().name());
            assertThat(TestDatabaseTest.relationKind(DB.database(), "message_events"))
                    .isEqualTo("p");
            assertThat(TestDatabaseTest.databaseExists(
                            DB.database().endpoint(), DB.database().name()))
                    .isTrue();
        }
    }
}
