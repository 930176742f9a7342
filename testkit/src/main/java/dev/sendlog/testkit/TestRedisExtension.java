package dev.sendlog.testkit;

import dev.sendlog.infra.RedisEndpoint;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A key prefix of its own on the shared {@link TestRedis} per test class; every key under it is
 * deleted after the class's last test:
 * <pre>{@code @RegisterExtension static final TestRedisExtension REDIS = new TestRedisExtension();}</pre>
 */
public final class TestRedisExtension implements BeforeAllCallback, AfterAllCallback {
    private static final Logger LOG = LoggerFactory.getLogger(TestRedisExtension.class);

    private String prefix;
    private RedisEndpoint endpoint;
    // Nested test classes inherit the extension; only the class that chose the prefix cleans it up.
    private String ownerContextId;

    @Override
    public synchronized void beforeAll(ExtensionContext context) {
        if (prefix == null) {
            endpoint = TestRedis.endpoint();
            prefix = TestRedis.prefix();
            ownerContextId = context.getUniqueId();
        }
    }

    @Override
    public synchronized void afterAll(ExtensionContext context) {
        if (prefix != null && context.getUniqueId().equals(ownerContextId)) {
            try {
                long deleted = TestRedis.deleteKeys(endpoint, prefix);
                LOG.debug("Deleted {} keys under {} on {}", deleted, prefix, endpoint.uri());
            } finally {
                prefix = null;
                ownerContextId = null;
            }
        }
    }

    public synchronized String prefix() {
        if (prefix == null) {
            throw new IllegalStateException("no key prefix: register TestRedisExtension on a static field "
                    + "with @RegisterExtension and use it inside the test class");
        }
        return prefix;
    }

    /** {@code prefix() + name}. */
    public String key(String name) {
        return prefix() + name;
    }

    public synchronized RedisEndpoint endpoint() {
        prefix();
        return endpoint;
    }
}
