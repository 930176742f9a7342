package dev.sendlog.testkit;

import dev.sendlog.infra.Directories;
import dev.sendlog.infra.LocalPostgres;
import dev.sendlog.infra.PostgresEndpoint;
import java.nio.file.Path;

/**
 * A PostgreSQL of the tests' own with {@code wal_level=logical}, for the change-data-capture feed: the shared
 * server is never reconfigured. Started once per JVM on a free port (a few seconds), stopped and deleted at exit;
 * each test still creates its own database on it with {@link TestDatabase#create(PostgresEndpoint)}.
 */
public final class LogicalPostgres {
    private static PostgresEndpoint endpoint;

    private LogicalPostgres() {}

    public static synchronized PostgresEndpoint endpoint() {
        if (endpoint == null) {
            Path dataDir = Directories.createTemp("sendlog-logical-pg-");
            // The defaults carry wal_level=logical and room for replication slots.
            LocalPostgres postgres = LocalPostgres.start(dataDir, 0, LocalPostgres.DEFAULT_SETTINGS);
            Runtime.getRuntime()
                    .addShutdownHook(new Thread(
                            () -> {
                                postgres.close();
                                Directories.deleteRecursively(dataDir);
                            },
                            "stop-logical-postgres"));
            endpoint = postgres.endpoint();
        }
        return endpoint;
    }
}
