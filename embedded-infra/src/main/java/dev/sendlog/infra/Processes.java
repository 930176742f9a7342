package dev.sendlog.infra;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/** What /proc says about a process that need not be our child. Linux only, like the binaries we run. */
final class Processes {
    private Processes() {}

    /** Alive and not a zombie: PID 1 here does not reap, so a dead orphan can linger as one. */
    static boolean isRunning(long pid) {
        String stat;
        try {
            stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.ISO_8859_1);
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException e) {
            throw new IllegalStateException("could not read /proc/" + pid + "/stat", e);
        }
        // The command name in parentheses may itself contain ") ", so look after the last one.
        int afterName = stat.lastIndexOf(')');
        char state = stat.length() > afterName + 2 ? stat.charAt(afterName + 2) : '?';
        return state != 'Z' && state != 'X';
    }

    static Optional<String> commandLine(long pid) {
        try {
            byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
            return Optional.of(
                    new String(raw, StandardCharsets.UTF_8).replace('\0', ' ').trim());
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new IllegalStateException("could not read /proc/" + pid + "/cmdline", e);
        }
    }
}
