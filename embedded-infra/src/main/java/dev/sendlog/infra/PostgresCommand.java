package dev.sendlog.infra;

import com.sun.security.auth.module.UnixSystem;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Command lines for the PostgreSQL programs. initdb and postgres refuse to run as root; as root
 * they run inside {@code unshare -U}, a user namespace where the process is not root (as zonky
 * does). unshare executes the program in place, so the child's pid is the server's pid.
 */
final class PostgresCommand {
    private static final boolean RUNNING_AS_ROOT = new UnixSystem().getUid() == 0;

    private PostgresCommand() {}

    static List<String> of(Path installation, String program, List<String> arguments) {
        List<String> command = new ArrayList<>();
        if (RUNNING_AS_ROOT) {
            command.add("unshare");
            command.add("-U");
        }
        command.add(installation.resolve("bin").resolve(program).toString());
        command.addAll(arguments);
        return command;
    }
}
