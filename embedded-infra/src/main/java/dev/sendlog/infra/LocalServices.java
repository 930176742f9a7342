package dev.sendlog.infra;

import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * "Find or start": what the service uses when no database or Redis is configured. A server already
 * listening on the default local port wins; otherwise one is started with its files under the
 * state folder, on a fixed port so that the next run finds the same server and data.
 */
public final class LocalServices {
    private static final Logger LOG = LoggerFactory.getLogger(LocalServices.class);

    public static final String DATABASE = "sendlog";
    public static final String LOCAL_HOST = "127.0.0.1";
    public static final int DEFAULT_POSTGRES_PORT = 5432;
    public static final int DEFAULT_REDIS_PORT = 6379;
    public static final int EMBEDDED_POSTGRES_PORT = 54329;
    public static final int LOCAL_REDIS_PORT = 63790;

    public static final String FORCE_EMBEDDED_VARIABLE = "SENDLOG_EMBEDDED";

    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(1);

    private LocalServices() {}

    public static PostgresHandle postgres(Path stateDir) {
        return postgres(stateDir, Map.of());
    }

    /** @param serverSettings used only when a server is started here (e.g. wal_level=logical) */
    public static PostgresHandle postgres(Path stateDir, Map<String, String> serverSettings) {
        return postgres(stateDir, serverSettings, DEFAULT_POSTGRES_PORT, EMBEDDED_POSTGRES_PORT);
    }

    static PostgresHandle postgres(
            Path stateDir, Map<String, String> serverSettings, int externalPort, int embeddedPort) {
        if (!forceEmbedded() && Reachability.isOpen(LOCAL_HOST, externalPort, PROBE_TIMEOUT)) {
            PostgresEndpoint endpoint = new PostgresEndpoint(
                    LOCAL_HOST, externalPort, LocalPostgres.SUPERUSER, "", LocalPostgres.ADMIN_DATABASE);
            String reason = "a PostgreSQL is already listening on " + LOCAL_HOST + ":" + externalPort;
            ensureDatabase(endpoint, reason);
            LOG.info(
                    "PostgreSQL: using the server at {}:{} (user {}, database {}): {}",
                    LOCAL_HOST,
                    externalPort,
                    endpoint.user(),
                    DATABASE,
                    reason);
            return new PostgresHandle(endpoint, DATABASE, Optional.empty(), reason);
        }
        Path dataDir = stateDir.resolve("postgres").toAbsolutePath();
        LOG.info(
                "PostgreSQL: nothing listens on {}:{}; starting an embedded PostgreSQL with its data in {} (port {} if free)",
                LOCAL_HOST,
                externalPort,
                dataDir,
                embeddedPort);
        LocalPostgres postgres = LocalPostgres.startPreferringPort(dataDir, embeddedPort, serverSettings);
        try {
            String reason = "nothing listened on " + LOCAL_HOST + ":" + externalPort
                    + "; embedded PostgreSQL started with its data in " + dataDir;
            ensureDatabase(postgres.endpoint(), reason);
            LOG.info(
                    "PostgreSQL: using the embedded server at {}:{} (database {})",
                    LOCAL_HOST,
                    postgres.endpoint().port(),
                    DATABASE);
            return new PostgresHandle(postgres.endpoint(), DATABASE, Optional.of(postgres), reason);
        } catch (RuntimeException e) {
            postgres.close();
            throw e;
        }
    }

    public static RedisHandle redis(Path stateDir) {
        return redis(stateDir, DEFAULT_REDIS_PORT, LOCAL_REDIS_PORT);
    }

    static RedisHandle redis(Path stateDir, int externalPort, int localPort) {
        if (!forceEmbedded() && Reachability.isOpen(LOCAL_HOST, externalPort, PROBE_TIMEOUT)) {
            String reason = "a Redis is already listening on " + LOCAL_HOST + ":" + externalPort;
            LOG.info("Redis: using the server at {}:{}: {}", LOCAL_HOST, externalPort, reason);
            return new RedisHandle(new RedisEndpoint(LOCAL_HOST, externalPort), Optional.empty(), reason);
        }
        Path dataDir = stateDir.resolve("redis").toAbsolutePath();
        LOG.info(
                "Redis: nothing listens on {}:{}; starting a local redis-server with its files in {} (port {} if free)",
                LOCAL_HOST,
                externalPort,
                dataDir,
                localPort);
        RedisProcess redis =
                RedisProcess.start(RedisOptions.inDirectory(dataDir).withPreferredPort(localPort));
        String reason = "nothing listened on " + LOCAL_HOST + ":" + externalPort + "; local redis-server started (pid "
                + redis.pid() + ", files in " + dataDir + ")";
        LOG.info("Redis: using the local redis-server at {}", redis.endpoint().uri());
        return new RedisHandle(redis.endpoint(), Optional.of(redis), reason);
    }

    /**
     * {@code SENDLOG_EMBEDDED=true} skips the servers on the default ports, as on a machine that has none
     * (how the README's first-run path is checked on a machine that does have them).
     */
    static boolean forceEmbedded() {
        return "true".equalsIgnoreCase(System.getenv(FORCE_EMBEDDED_VARIABLE));
    }

    private static void ensureDatabase(PostgresEndpoint endpoint, String why) {
        try {
            if (PostgresAdmin.ensureDatabase(endpoint, DATABASE)) {
                LOG.info("PostgreSQL: created database {} on {}:{}", DATABASE, endpoint.host(), endpoint.port());
            }
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "PostgreSQL at " + endpoint.host() + ":" + endpoint.port() + " (" + why
                            + ") did not let user " + endpoint.user() + " use database " + DATABASE
                            + "; configure the database explicitly: " + e.getMessage(),
                    e);
        }
    }
}
