package dev.sendlog.infra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Marks a server directory as owned by this JVM while its server runs. The lock dies with the JVM
 * (child processes do not inherit it), so a free lock next to a running server means the server
 * is an orphan of a JVM that was killed.
 */
final class OwnerLock implements AutoCloseable {
    private final FileChannel channel;
    private final FileLock lock;

    private OwnerLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    static OwnerLock acquire(Path lockFile, String what) {
        FileChannel channel;
        try {
            channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new UncheckedIOException("could not open " + lockFile, e);
        }
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            closeAfterFailure(channel, lockFile, e);
            throw new IllegalStateException(what + " is already in use by this JVM (" + lockFile + " is locked)", e);
        } catch (IOException e) {
            closeAfterFailure(channel, lockFile, e);
            throw new UncheckedIOException("could not lock " + lockFile, e);
        }
        if (lock == null) {
            IllegalStateException inUse =
                    new IllegalStateException(what + " is in use by another process (" + lockFile + " is locked)");
            closeAfterFailure(channel, lockFile, inUse);
            throw inUse;
        }
        return new OwnerLock(channel, lock);
    }

    private static void closeAfterFailure(FileChannel channel, Path lockFile, Exception primary) {
        try {
            channel.close();
        } catch (IOException e) {
            primary.addSuppressed(new UncheckedIOException("could not close " + lockFile, e));
        }
    }

    @Override
    public void close() {
        try {
            lock.release();
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException("could not release an owner lock", e);
        }
    }
}
