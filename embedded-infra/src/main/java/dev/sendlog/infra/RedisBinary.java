package dev.sendlog.infra;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.embedded.core.ExecutableProvider;

/** Finds a redis-server: the system's (on the PATH or /usr/bin), else the one bundled in embedded-redis. */
public final class RedisBinary {
    private static final Logger LOG = LoggerFactory.getLogger(RedisBinary.class);
    private static final String NAME = "redis-server";
    private static final Path DEBIAN_LOCATION = Path.of("/usr/bin", NAME);

    private static Path bundled;

    private RedisBinary() {}

    public static Path locate() {
        Optional<Path> system = onPath().or(() -> Optional.of(DEBIAN_LOCATION).filter(Files::isExecutable));
        if (system.isPresent()) {
            return system.get();
        }
        Path fallback = bundled();
        LOG.info("No {} on this machine; using the one bundled in embedded-redis: {}", NAME, fallback);
        return fallback;
    }

    /** The binary bundled in com.github.codemonstur:embedded-redis, written once per JVM under java.io.tmpdir. */
    public static synchronized Path bundled() {
        if (bundled != null && Files.isExecutable(bundled)) {
            return bundled;
        }
        try {
            // A folder per JVM: another JVM's exit deletes its own copy, never one we are running.
            Path folder = Directories.createTemp("embedded-redis-");
            folder.toFile().deleteOnExit();
            File executable =
                    ExecutableProvider.newJarResourceProvider(folder.toFile()).get();
            bundled = executable.toPath();
            return bundled;
        } catch (IOException e) {
            throw new UncheckedIOException("could not extract the redis-server bundled in embedded-redis", e);
        }
    }

    private static Optional<Path> onPath() {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String directory : path.split(File.pathSeparator)) {
            if (directory.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(directory, NAME);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }
}
