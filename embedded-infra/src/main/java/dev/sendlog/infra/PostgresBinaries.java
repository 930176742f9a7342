package dev.sendlog.infra;

import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL binaries shipped in the zonky artifact, unpacked once under
 * {@code java.io.tmpdir/embedded-pg} (the build points java.io.tmpdir at the target folder)
 * into a folder named after the archive's digest, so that versions never mix.
 */
final class PostgresBinaries {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresBinaries.class);
    private static final String COMPLETE_MARKER = ".complete";

    private static Path installed;

    private PostgresBinaries() {}

    /** The installation folder (with bin/, lib/, share/), unpacking it on first use. */
    static synchronized Path install() {
        if (installed != null && Files.isRegularFile(installed.resolve(COMPLETE_MARKER))) {
            return installed;
        }
        byte[] archive = readArchive();
        Path root = Path.of(System.getProperty("java.io.tmpdir"), "embedded-pg");
        Path target = root.resolve("PG-" + digest(archive));
        if (!Files.isRegularFile(target.resolve(COMPLETE_MARKER))) {
            unpack(archive, root, target);
        }
        installed = target;
        return target;
    }

    private static byte[] readArchive() {
        String architecture = System.getProperty("os.arch");
        String machine = "amd64".equals(architecture) ? "x86_64" : architecture;
        try (InputStream in = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary("Linux", machine)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the embedded PostgreSQL archive", e);
        }
    }

    private static String digest(byte[] archive) {
        try {
            byte[] sha256 = MessageDigest.getInstance("SHA-256").digest(archive);
            return HexFormat.of().formatHex(sha256, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** Unpacks beside the target and renames: concurrent JVMs never see a half-unpacked folder. */
    private static void unpack(byte[] archive, Path root, Path target) {
        long startNanos = System.nanoTime();
        Path staging;
        try {
            Files.createDirectories(root);
            staging = Files.createTempDirectory(root, target.getFileName() + ".unpacking-");
            TxzArchive.extract(new ByteArrayInputStream(archive), staging);
            Files.createFile(staging.resolve(COMPLETE_MARKER));
        } catch (IOException e) {
            throw new UncheckedIOException("could not unpack the embedded PostgreSQL binaries under " + root, e);
        }
        try {
            Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
            LOG.info(
                    "Unpacked the embedded PostgreSQL binaries into {} in {} ms",
                    target,
                    (System.nanoTime() - startNanos) / 1_000_000);
        } catch (FileAlreadyExistsException | DirectoryNotEmptyException e) {
            LOG.info("Another process unpacked the PostgreSQL binaries into {} first; using those", target);
            Directories.deleteRecursively(staging);
        } catch (IOException e) {
            throw new UncheckedIOException("could not move the PostgreSQL binaries into " + target, e);
        }
    }
}
