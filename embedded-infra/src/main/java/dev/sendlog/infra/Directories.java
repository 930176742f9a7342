package dev.sendlog.infra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** File-system chores shared by the servers and the test harness. */
public final class Directories {
    private Directories() {}

    /** A new directory under {@code java.io.tmpdir} (which the build points at its target folder). */
    public static Path createTemp(String prefix) {
        try {
            Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
            Files.createDirectories(tmp);
            return Files.createTempDirectory(tmp, prefix);
        } catch (IOException e) {
            throw new UncheckedIOException("could not create a temporary directory " + prefix + "*", e);
        }
    }

    /** Deletes {@code root} and everything below it; symbolic links are removed, not followed. */
    public static void deleteRecursively(Path root) {
        if (!Files.exists(root, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        List<Path> deepestFirst;
        try (Stream<Path> walk = Files.walk(root)) {
            deepestFirst = walk.sorted(Comparator.reverseOrder()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("could not list " + root + " for deletion", e);
        }
        for (Path path : deepestFirst) {
            try {
                Files.deleteIfExists(path);
            } catch (IOException e) {
                throw new UncheckedIOException("could not delete " + path, e);
            }
        }
    }
}
