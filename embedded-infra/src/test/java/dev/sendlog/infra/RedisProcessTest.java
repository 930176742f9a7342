package dev.sendlog.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RedisProcessTest {
    private Path dataDir;

    @BeforeEach
    void createDataDir() {
        dataDir = Directories.createTemp("redis-process-test-");
    }

    @AfterEach
    void deleteDataDir() {
        Directories.deleteRecursively(dataDir);
    }

    @Test
    void startsAnswersAndStopsTheSystemBinary() {
        long pid;
        try (RedisProcess redis = RedisProcess.start(RedisOptions.inDirectory(dataDir))) {
            pid = redis.pid();
            assertThat(redis.endpoint().host()).isEqualTo("127.0.0.1");
            assertThat(set(redis.endpoint(), "k", "v")).isEqualTo("OK");
            assertThat(Files.readString(redis.logFile())).contains("Ready to accept connections");
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        assertThat(Processes.isRunning(pid)).isFalse();
        assertThat(dataDir.resolve("dump.rdb")).doesNotExist();
    }

    @Test
    void theBundledFallbackBinaryRunsTheSameWay() {
        Path bundled = RedisBinary.bundled();
        assertThat(bundled.getFileName().toString()).startsWith("redis-server-");
        try (RedisProcess redis =
                RedisProcess.start(RedisOptions.inDirectory(dataDir).withExecutable(bundled))) {
            assertThat(set(redis.endpoint(), "k", "v")).isEqualTo("OK");
        }
    }

    @Test
    void restartKeepsThePortAndLosesTheData() {
        try (RedisProcess redis = RedisProcess.start(RedisOptions.inDirectory(dataDir))) {
            int port = redis.endpoint().port();
            set(redis.endpoint(), "k", "v");
            redis.restart();
            assertThat(redis.endpoint().port()).isEqualTo(port);
            assertThat(get(redis.endpoint(), "k")).isNull();
        }
    }

    @Test
    void aBusyPortFailsWithTheLogTail() throws IOException {
        try (ServerSocket squatter = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            RedisOptions options = RedisOptions.inDirectory(dataDir).withPort(squatter.getLocalPort());
            assertThatThrownBy(() -> RedisProcess.start(options))
                    .isInstanceOf(ServerStartException.class)
                    .hasMessageContaining("redis.log")
                    .hasMessageContaining("Address already in use");
        }
    }

    @Test
    void aPreferredBusyPortFallsBackToAFreeOne() throws IOException {
        try (ServerSocket squatter = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                RedisProcess redis = RedisProcess.start(
                        RedisOptions.inDirectory(dataDir).withPreferredPort(squatter.getLocalPort()))) {
            assertThat(redis.endpoint().port()).isNotEqualTo(squatter.getLocalPort());
            assertThat(set(redis.endpoint(), "k", "v")).isEqualTo("OK");
        }
    }

    @Test
    void aServerLeftRunningInTheFolderByADeadOwnerIsStopped() throws Exception {
        int port = FreePorts.free();
        // Stands in for a redis-server whose JVM was killed: running, with its pid file, and nobody holding the lock.
        Process orphan = new ProcessBuilder(
                        RedisBinary.locate().toString(),
                        "--port",
                        Integer.toString(port),
                        "--bind",
                        "127.0.0.1",
                        "--save",
                        "",
                        "--dir",
                        dataDir.toString(),
                        "--pidfile",
                        dataDir.resolve("redis.pid").toString())
                .redirectErrorStream(true)
                .redirectOutput(dataDir.resolve("orphan.log").toFile())
                .start();
        try {
            // A killed JVM's server had long written its pid file; redis-server writes it after it listens.
            assertThat(Poll.until(
                            Duration.ofSeconds(10),
                            () -> Reachability.isOpen("127.0.0.1", port, Duration.ofMillis(200))
                                    && Files.exists(dataDir.resolve("redis.pid"))))
                    .isTrue();
            try (RedisProcess redis =
                    RedisProcess.start(RedisOptions.inDirectory(dataDir).withPort(port))) {
                // Stopped by the start (its port is free again); this JVM reaps the child a moment later, so wait for
                // that.
                assertThat(orphan.waitFor(10, java.util.concurrent.TimeUnit.SECONDS))
                        .as("the orphan has exited")
                        .isTrue();
                assertThat(redis.pid()).isNotEqualTo(orphan.pid());
                assertThat(set(redis.endpoint(), "k", "v")).isEqualTo("OK");
            }
        } finally {
            orphan.destroyForcibly();
        }
    }

    @Test
    void anotherServerOnThePortIsNotTakenForOurs() throws Exception {
        int port = FreePorts.free();
        Path elsewhere = Directories.createTemp("redis-process-test-other-");
        // Someone else's redis-server, from another folder: nothing of it is ours to stop.
        Process other = new ProcessBuilder(
                        RedisBinary.locate().toString(),
                        "--port",
                        Integer.toString(port),
                        "--bind",
                        "127.0.0.1",
                        "--save",
                        "",
                        "--dir",
                        elsewhere.toString())
                .redirectErrorStream(true)
                .redirectOutput(elsewhere.resolve("other.log").toFile())
                .start();
        try {
            assertThat(Poll.until(
                            Duration.ofSeconds(10),
                            () -> Reachability.isOpen("127.0.0.1", port, Duration.ofMillis(200))))
                    .isTrue();
            // Ours fails to bind and exits; under load that takes a while, in which the other server answers
            // PING. A wrapper that lingers after redis-server exits makes that while certain.
            Path slowToExit = elsewhere.resolve("slow-to-exit-redis-server");
            Files.writeString(
                    slowToExit,
                    "#!/bin/sh\n\"" + RedisBinary.locate() + "\" \"$@\"\nstatus=$?\nsleep 3\nexit $status\n");
            assertThat(slowToExit.toFile().setExecutable(true)).isTrue();
            assertThatThrownBy(() -> RedisProcess.start(
                            RedisOptions.inDirectory(dataDir).withPort(port).withExecutable(slowToExit)))
                    .isInstanceOf(ServerStartException.class)
                    .hasMessageContaining("Address already in use");
            assertThat(other.isAlive()).as("the other server is left alone").isTrue();
        } finally {
            other.destroyForcibly();
            other.waitFor();
            Directories.deleteRecursively(elsewhere);
        }
    }

    @Test
    void theProcessIdIsReadFromInfoServer() {
        assertThat(RedisPing.processId("# Server\r\nredis_version:7.0.15\r\nprocess_id:4242\r\ntcp_port:6379\r\n"))
                .isEqualTo(4242);
        assertThat(RedisPing.processId("# Server\r\n")).isEqualTo(-1);
    }

    static String set(RedisEndpoint endpoint, String key, String value) {
        RedisClient client = RedisClient.create(endpoint.uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return connection.sync().set(key, value);
        } finally {
            client.shutdown();
        }
    }

    static String get(RedisEndpoint endpoint, String key) {
        RedisClient client = RedisClient.create(endpoint.uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return connection.sync().get(key);
        } finally {
            client.shutdown();
        }
    }
}
