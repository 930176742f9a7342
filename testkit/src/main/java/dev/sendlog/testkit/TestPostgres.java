package dev.sendlog.testkit;

import dev.sendlog.infra.Directories;
import dev.sendlog.infra.LocalPostgres;
import dev.sendlog.infra.PostgresEndpoint;
import dev.sendlog.infra.Reachability;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.postgresql.Driver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The PostgreSQL cluster tests create their databases on, chosen once per JVM: the one named by
 * {@code SENDLOG_TEST_PG_URL}, else 127.0.0.1:5432, else a Testcontainers postgres:16, else an
 * embedded PostgreSQL started by this JVM.
 */
public final class TestPostgres {
    private static final Logger LOG = LoggerFactory.getLogger(TestPostgres.class);

    public static final String URL_VARIABLE = "SENDLOG_TEST_PG_URL";
    public static final String USER_VARIABLE = "SENDLOG_TEST_PG_USER";
    public static final String PASSWORD_VARIABLE = "SENDLOG_TEST_PG_PASSWORD";

    private static final String LOCAL_HOST = "127.0.0.1";
    private static final int LOCAL_PORT = 5432;
    private static final Duration PROBE_TIMEOUT = Duration.ofMillis(500);
    private static final String IMAGE = "postgres:16";
    // Lets tests of logical replication run on the clusters this harness starts.
    private static final Map<String, String> SERVER_SETTINGS = Map.of(
            "max_connections", "200",
            "wal_level", "logical",
            "max_wal_senders", "10",
            "max_replication_slots", "10");

    private static ChosenServer<PostgresEndpoint> chosen;

    private TestPostgres() {}

    public static PostgresEndpoint endpoint() {
        return chosen().endpoint();
    }

    public static ServerSource source() {
        return chosen().source();
    }

    private static synchronized ChosenServer<PostgresEndpoint> chosen() {
        if (chosen == null) {
            chosen = choose();
            LOG.info("Test PostgreSQL: {} from {} ({})", chosen.endpoint(), chosen.source(), chosen.reason());
        }
        return chosen;
    }

    private static ChosenServer<PostgresEndpoint> choose() {
        if (TestEnvironment.forceEmbedded()) {
            return embedded("-D" + TestEnvironment.FORCE_EMBEDDED_PROPERTY + "=true");
        }
        var url = TestEnvironment.variable(URL_VARIABLE);
        if (url.isPresent()) {
            return new ChosenServer<>(fromJdbcUrl(url.get()), ServerSource.ENVIRONMENT, URL_VARIABLE + " is set");
        }
        if (Reachability.isOpen(LOCAL_HOST, LOCAL_PORT, PROBE_TIMEOUT)) {
            PostgresEndpoint local = new PostgresEndpoint(LOCAL_HOST, LOCAL_PORT, "postgres", "", "postgres");
            try {
                checkLogin(local);
                return new ChosenServer<>(
                        local, ServerSource.LOCAL_DEFAULT_PORT, "a server listens on " + LOCAL_HOST + ":" + LOCAL_PORT);
            } catch (SQLException e) {
                LOG.warn(
                        "A server listens on {}:{} but user postgres cannot use it; looking further",
                        LOCAL_HOST,
                        LOCAL_PORT,
                        e);
            }
        }
        if (TestEnvironment.dockerAvailable()) {
            return container();
        }
        return embedded("no " + URL_VARIABLE + ", nothing usable on " + LOCAL_HOST + ":" + LOCAL_PORT + ", no Docker");
    }

    static PostgresEndpoint fromJdbcUrl(String jdbcUrl) {
        Properties parsed = Driver.parseURL(jdbcUrl, new Properties());
        if (parsed == null) {
            throw new IllegalArgumentException(URL_VARIABLE + " is not a PostgreSQL JDBC URL: " + jdbcUrl);
        }
        String host = parsed.getProperty("PGHOST");
        String port = parsed.getProperty("PGPORT");
        if (host.contains(",")) {
            throw new IllegalArgumentException(URL_VARIABLE + " must name one host: " + jdbcUrl);
        }
        return new PostgresEndpoint(
                host,
                Integer.parseInt(port),
                TestEnvironment.variable(USER_VARIABLE).orElse("postgres"),
                TestEnvironment.variable(PASSWORD_VARIABLE).orElse(""),
                parsed.getProperty("PGDBNAME"));
    }

    private static void checkLogin(PostgresEndpoint endpoint) throws SQLException {
        try (Connection connection = endpoint.connect(endpoint.adminDatabase());
                Statement statement = connection.createStatement()) {
            statement.execute("SELECT 1");
        }
    }

    private static ChosenServer<PostgresEndpoint> container() {
        PostgreSQLContainer container = new PostgreSQLContainer(DockerImageName.parse(IMAGE));
        container.withCommand(command());
        container.start();
        Runtime.getRuntime().addShutdownHook(new Thread(container::stop, "stop-test-postgres-container"));
        PostgresEndpoint endpoint = new PostgresEndpoint(
                container.getHost(),
                container.getMappedPort(5432),
                container.getUsername(),
                container.getPassword(),
                container.getDatabaseName());
        return new ChosenServer<>(endpoint, ServerSource.TESTCONTAINERS, "Docker is available; container " + IMAGE);
    }

    private static String[] command() {
        String[] command = new String[1 + 2 * SERVER_SETTINGS.size()];
        command[0] = "postgres";
        int next = 1;
        for (Map.Entry<String, String> setting : SERVER_SETTINGS.entrySet()) {
            command[next++] = "-c";
            command[next++] = setting.getKey() + "=" + setting.getValue();
        }
        return command;
    }

    private static ChosenServer<PostgresEndpoint> embedded(String why) {
        Path dataDir = Directories.createTemp("sendlog-test-pg-");
        LocalPostgres postgres = LocalPostgres.start(dataDir, 0, SERVER_SETTINGS);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            postgres.close();
                            Directories.deleteRecursively(dataDir);
                        },
                        "stop-test-postgres"));
        return new ChosenServer<>(
                postgres.endpoint(), ServerSource.EMBEDDED, why + "; embedded PostgreSQL in " + dataDir);
    }
}
