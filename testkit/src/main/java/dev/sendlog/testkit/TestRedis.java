package dev.sendlog.testkit;

import dev.sendlog.infra.Directories;
import dev.sendlog.infra.Reachability;
import dev.sendlog.infra.RedisEndpoint;
import dev.sendlog.infra.RedisOptions;
import dev.sendlog.infra.RedisProcess;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The Redis tests share, chosen once per JVM: the one named by {@code SENDLOG_TEST_REDIS_URL}, else
 * 127.0.0.1:6379, else a Testcontainers redis:7, else a redis-server started by this JVM. Tests keep
 * apart by key prefix ({@link #prefix()}); tests that must break Redis use {@link PrivateRedis}.
 */
public final class TestRedis {
    private static final Logger LOG = LoggerFactory.getLogger(TestRedis.class);

    public static final String URL_VARIABLE = "SENDLOG_TEST_REDIS_URL";

    private static final String LOCAL_HOST = "127.0.0.1";
    private static final int LOCAL_PORT = 6379;
    private static final Duration PROBE_TIMEOUT = Duration.ofMillis(500);
    private static final String IMAGE = "redis:7";
    private static final int SCAN_BATCH = 1_000;
    private static final SecureRandom RANDOM = new SecureRandom();

    private static ChosenServer<RedisEndpoint> chosen;

    private TestRedis() {}

    public static RedisEndpoint endpoint() {
        return chosen().endpoint();
    }

    public static ServerSource source() {
        return chosen().source();
    }

    /** A fresh key prefix such as {@code t:1f2e3d4c5b6a7980:}. */
    public static String prefix() {
        return "t:" + HexFormat.of().toHexDigits(RANDOM.nextLong()) + ":";
    }

    /** Removes every key that starts with {@code prefix} (SCAN, then UNLINK); returns how many. */
    public static long deleteKeys(RedisEndpoint endpoint, String prefix) {
        if (prefix.isBlank()) {
            throw new IllegalArgumentException("refusing to delete every key: the prefix is blank");
        }
        ScanArgs matching = ScanArgs.Builder.matches(escapeGlob(prefix) + "*").limit(SCAN_BATCH);
        RedisClient client = RedisClient.create(RedisURI.create(endpoint.uri()));
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            long deleted = 0;
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                KeyScanCursor<String> page = redis.scan(cursor, matching);
                if (!page.getKeys().isEmpty()) {
                    deleted += redis.unlink(page.getKeys().toArray(String[]::new));
                }
                cursor = page;
            } while (!cursor.isFinished());
            return deleted;
        } finally {
            client.shutdown();
        }
    }

    private static String escapeGlob(String literal) {
        StringBuilder escaped = new StringBuilder(literal.length() + 8);
        for (char c : literal.toCharArray()) {
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                escaped.append('\\');
            }
            escaped.append(c);
        }
        return escaped.toString();
    }

    private static synchronized ChosenServer<RedisEndpoint> chosen() {
        if (chosen == null) {
            chosen = choose();
            LOG.info("Test Redis: {} from {} ({})", chosen.endpoint().uri(), chosen.source(), chosen.reason());
        }
        return chosen;
    }

    private static ChosenServer<RedisEndpoint> choose() {
        if (TestEnvironment.forceEmbedded()) {
            return localProcess("-D" + TestEnvironment.FORCE_EMBEDDED_PROPERTY + "=true");
        }
        var url = TestEnvironment.variable(URL_VARIABLE);
        if (url.isPresent()) {
            return new ChosenServer<>(
                    RedisEndpoint.parse(url.get()), ServerSource.ENVIRONMENT, URL_VARIABLE + " is set");
        }
        if (Reachability.isOpen(LOCAL_HOST, LOCAL_PORT, PROBE_TIMEOUT)) {
            return new ChosenServer<>(
                    new RedisEndpoint(LOCAL_HOST, LOCAL_PORT),
                    ServerSource.LOCAL_DEFAULT_PORT,
                    "a server listens on " + LOCAL_HOST + ":" + LOCAL_PORT);
        }
        if (TestEnvironment.dockerAvailable()) {
            return container();
        }
        return localProcess("no " + URL_VARIABLE + ", nothing on " + LOCAL_HOST + ":" + LOCAL_PORT + ", no Docker");
    }

    private static ChosenServer<RedisEndpoint> container() {
        GenericContainer<?> container =
                new GenericContainer<>(DockerImageName.parse(IMAGE)).withExposedPorts(LOCAL_PORT);
        container.start();
        Runtime.getRuntime().addShutdownHook(new Thread(container::stop, "stop-test-redis-container"));
        return new ChosenServer<>(
                new RedisEndpoint(container.getHost(), container.getMappedPort(LOCAL_PORT)),
                ServerSource.TESTCONTAINERS,
                "Docker is available; container " + IMAGE);
    }

    private static ChosenServer<RedisEndpoint> localProcess(String why) {
        Path dataDir = Directories.createTemp("sendlog-test-redis-");
        RedisProcess redis = RedisProcess.start(RedisOptions.inDirectory(dataDir));
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            redis.close();
                            Directories.deleteRecursively(dataDir);
                        },
                        "stop-test-redis"));
        return new ChosenServer<>(redis.endpoint(), ServerSource.EMBEDDED, why + "; local redis-server in " + dataDir);
    }
}
