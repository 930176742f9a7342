package dev.sendlog.infra;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.tukaani.xz.XZInputStream;

/** Unpacks a tar.xz archive (the format of the zonky PostgreSQL binaries), keeping modes and symbolic links. */
final class TxzArchive {
    private static final PosixFilePermission[] PERMISSION_BITS = {
        PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ,
        PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
        PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ,
    };

    private TxzArchive() {}

    static void extract(InputStream txz, Path targetDir) throws IOException {
        Path root = targetDir.toAbsolutePath().normalize();
        try (TarArchiveInputStream tar = new TarArchiveInputStream(new XZInputStream(txz))) {
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                Path target = root.resolve(entry.getName()).normalize();
                if (!target.startsWith(root)) {
                    throw new IOException("archive entry escapes the target directory: " + entry.getName());
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(target);
                } else if (entry.isSymbolicLink()) {
                    Files.createDirectories(target.getParent());
                    Files.createSymbolicLink(target, Path.of(entry.getLinkName()));
                } else if (entry.isLink()) {
                    Files.createDirectories(target.getParent());
                    Files.createLink(target, root.resolve(entry.getLinkName()).normalize());
                } else if (entry.isFile()) {
                    Files.createDirectories(target.getParent());
                    Files.copy(tar, target);
                    Files.setPosixFilePermissions(target, permissions(entry.getMode()));
                } else {
                    throw new IOException("unsupported archive entry " + entry.getName());
                }
            }
        }
    }

    private static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> permissions = EnumSet.noneOf(PosixFilePermission.class);
        for (int bit = 0; bit < PERMISSION_BITS.length; bit++) {
            if ((mode & (1 << bit)) != 0) {
                permissions.add(PERMISSION_BITS[bit]);
            }
        }
        return permissions;
    }
}
