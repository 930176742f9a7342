package dev.sendlog.infra;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/** The end of a server's log, for error messages. */
final class LogTail {
    private static final int LINES = 30;

    private LogTail() {}

    static String of(Path logFile) {
        try {
            List<String> lines = Files.readAllLines(logFile, StandardCharsets.ISO_8859_1);
            List<String> tail = lines.subList(Math.max(0, lines.size() - LINES), lines.size());
            return "last lines of " + logFile + ":\n  " + String.join("\n  ", tail);
        } catch (NoSuchFileException e) {
            return "no log at " + logFile;
        } catch (IOException e) {
            return "could not read " + logFile + ": " + e;
        }
    }
}
