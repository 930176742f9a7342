package dev.sendlog.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * scripts/lib/browser.sh, which scripts/test runs before Maven: on a fresh machine without Chromium the README's test
 * command installs it (as root, through apt-get) instead of failing in ConsoleBrowserTest, and where it cannot, it stops
 * at once with what to install. apt-get here is a stand-in on the PATH that records its arguments and "installs" by
 * creating the two files; the script itself runs as written, in bash.
 */
class BrowserSetupScriptTest {
    private static final Path SCRIPT =
            Path.of("..", "scripts", "lib", "browser.sh").toAbsolutePath().normalize();

    @TempDir
    Path dir;

    private Path bin;
    private Path chromium;
    private Path driver;
    private Path aptLog;

    private record Run(int exit, String output) {}

    @BeforeEach
    void fakeMachine() throws IOException {
        bin = Files.createDirectories(dir.resolve("bin"));
        chromium = dir.resolve("usr-bin/chromium");
        driver = dir.resolve("usr-bin/chromedriver");
        aptLog = dir.resolve("apt.log");
        Path apt = bin.resolve("apt-get");
        Files.writeString(apt, """
                #!/bin/bash
                echo "$*" >> "%s"
                if [ "$1" = install ]; then
                  /bin/mkdir -p "%s"
                  printf '#!/bin/sh\\n' > "%s"; printf '#!/bin/sh\\n' > "%s"
                  /bin/chmod +x "%s" "%s"
                fi
                """.formatted(aptLog, chromium.getParent(), chromium, driver, chromium, driver));
        Files.setPosixFilePermissions(apt, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @Test
    void asRootOnAFreshMachineItInstallsChromiumAndItsDriver() throws Exception {
        Run run = run(Map.of("SENDLOG_UID", "0"));

        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(Files.readAllLines(aptLog)).containsExactly("update -qq", "install -y -qq chromium chromium-driver");
        assertThat(chromium).isExecutable();
        assertThat(driver).isExecutable();
        assertThat(run.output()).contains("installing Debian's chromium and chromium-driver");
    }

    @Test
    void withoutRootOrSudoItStopsAtOnceWithWhatToInstall() throws Exception {
        Run run = run(Map.of("SENDLOG_UID", "1000"));

        assertThat(run.exit()).isEqualTo(1);
        assertThat(aptLog).doesNotExist();
        assertThat(run.output())
                .contains("apt-get install -y chromium chromium-driver")
                .contains("SENDLOG_SKIP_BROWSER=true scripts/test");
    }

    @Test
    void askedToSkipItLetsTheBrowserTestsBeSkippedWithTheirReason() throws Exception {
        Run run = run(Map.of("SENDLOG_UID", "1000", "SENDLOG_SKIP_BROWSER", "true"));

        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(aptLog).doesNotExist();
        assertThat(run.output()).contains("extra=-Dsendlog.console.optional=true");
    }

    @Test
    void withChromiumPresentItDoesNothing() throws Exception {
        Files.createDirectories(chromium.getParent());
        for (Path p : List.of(chromium, driver)) {
            Files.writeString(p, "#!/bin/sh\n");
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        Run run = run(Map.of("SENDLOG_UID", "1000"));

        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(aptLog).doesNotExist();
        assertThat(run.output()).isEqualTo("extra=\n");
    }

    /** Sources the script in bash with only the stand-in apt-get on the PATH (no sudo), as scripts/test does. */
    private Run run(Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(
                        "/bin/bash",
                        "-c",
                        "set -euo pipefail; . \"$SCRIPT\"; SENDLOG_MAVEN_EXTRA=();"
                                + " sendlog_ensure_chromium; echo \"extra=${SENDLOG_MAVEN_EXTRA[*]:-}\"")
                .redirectErrorStream(true);
        Map<String, String> e = new HashMap<>(env);
        e.put("SCRIPT", SCRIPT.toString());
        e.put("PATH", bin.toString());
        e.put("SENDLOG_CHROMIUM", chromium.toString());
        e.put("SENDLOG_CHROMEDRIVER", driver.toString());
        pb.environment().clear();
        pb.environment().putAll(e);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), out);
    }
}
