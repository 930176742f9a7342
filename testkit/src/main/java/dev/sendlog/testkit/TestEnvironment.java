package dev.sendlog.testkit;

import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;

/** What the test harness reads from its surroundings when choosing servers. */
final class TestEnvironment {
    private static final Logger LOG = LoggerFactory.getLogger(TestEnvironment.class);

    /** {@code -Dsendlog.test.forceEmbedded=true} skips environment variables, local ports and Docker. */
    static final String FORCE_EMBEDDED_PROPERTY = "sendlog.test.forceEmbedded";

    private static Boolean dockerAvailable;

    private TestEnvironment() {}

    static boolean forceEmbedded() {
        return Boolean.getBoolean(FORCE_EMBEDDED_PROPERTY);
    }

    static Optional<String> variable(String name) {
        return Optional.ofNullable(System.getenv(name)).map(String::trim).filter(value -> !value.isEmpty());
    }

    static synchronized boolean dockerAvailable() {
        if (dockerAvailable == null) {
            dockerAvailable = DockerClientFactory.instance().isDockerAvailable();
            LOG.info("Docker {} for Testcontainers", dockerAvailable ? "is available" : "is not available");
        }
        return dockerAvailable;
    }
}
