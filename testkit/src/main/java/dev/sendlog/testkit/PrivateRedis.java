package dev.sendlog.testkit;

import dev.sendlog.infra.Directories;
import dev.sendlog.infra.RedisEndpoint;
import dev.sendlog.infra.RedisOptions;
import dev.sendlog.infra.RedisProcess;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A redis-server of the test's own, on a free port with its files under java.io.tmpdir, for tests
 * that kill, flush, pause or restart Redis or fill a small maxmemory. As an extension
 * ({@code @RegisterExtension static final PrivateRedis REDIS = new PrivateRedis();}) it runs for the
 * whole test class; as a helper, {@code try (PrivateRedis redis = new PrivateRedis().start()) {...}}.
 */
public final class PrivateRedis implements BeforeAllCallback, AfterAllCallback, AutoCloseable {
    private final long maxMemoryBytes;
    private Path dataDir;
    private RedisProcess process;
    private String ownerContextId;

    /** No memory limit. */
    public PrivateRedis() {
        this(0);
    }

    private PrivateRedis(long maxMemoryBytes) {
        this.maxMemoryBytes = maxMemoryBytes;
    }

    /** Limited to {@code bytes}, with maxmemory-policy noeviction: writes fail once it is full. */
    public static PrivateRedis withMaxMemoryBytes(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("maxmemory must be positive: " + bytes);
        }
        return new PrivateRedis(bytes);
    }

    /** Starts the server unless it runs already; returns this. */
    public synchronized PrivateRedis start() {
        if (process == null) {
            dataDir = Directories.createTemp("private-redis-");
            try {
                process = RedisProcess.start(RedisOptions.inDirectory(dataDir).withMaxMemoryBytes(maxMemoryBytes));
            } catch (RuntimeException e) {
                Directories.deleteRecursively(dataDir);
                dataDir = null;
                throw e;
            }
        }
        return this;
    }

    @Override
    public synchronized void beforeAll(ExtensionContext context) {
        if (process == null) {
            start();
            ownerContextId = context.getUniqueId();
        }
    }

    @Override
    public synchronized void afterAll(ExtensionContext context) {
        if (context.getUniqueId().equals(ownerContextId)) {
            close();
        }
    }

    /** The server itself: kill, pause, resume, restart. */
    public synchronized RedisProcess process() {
        if (process == null) {
            throw new IllegalStateException("PrivateRedis is not started: register it with @RegisterExtension "
                    + "on a static field, or call start()");
        }
        return process;
    }

    public RedisEndpoint endpoint() {
        return process().endpoint();
    }

    /** Stops the server and deletes its files. */
    @Override
    public synchronized void close() {
        if (process == null) {
            return;
        }
        try {
            process.close();
        } finally {
            Directories.deleteRecursively(dataDir);
            process = null;
            dataDir = null;
            ownerContextId = null;
        }
    }
}
