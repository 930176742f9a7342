package dev.sendlog.service.publish;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sendlog.infra.Directories;
import dev.sendlog.infra.LocalPostgres;
import dev.sendlog.service.support.ServiceHarness;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code pipeline.feed: cdc} on a server that cannot decode logically: the poller refuses to start and says why. */
class CdcStartupTest {
    @Test
    void aServerWithoutLogicalDecodingIsRefusedAtStartWithWhatToChange() {
        Path dir = Directories.createTemp("sendlog-replica-pg-");
        try (LocalPostgres postgres = LocalPostgres.start(dir, 0, Map.of("wal_level", "replica"))) {
            ServiceHarness service = new ServiceHarness("components", "POLLER")
                    .onPostgres(postgres.endpoint())
                    .cdcFeed();
            try {
                assertThatThrownBy(() -> service.beforeAll(null))
                        .hasStackTraceContaining("runs with wal_level = replica")
                        .hasStackTraceContaining("set pipeline.feed: polling");
            } finally {
                service.afterAll(null);
            }
        } finally {
            Directories.deleteRecursively(dir);
        }
    }
}
