package dev.sendlog.tools;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The two jars the tools start processes from: the product ({@code sendlog.jar}: servers, components, {@code db}) and
 * this one (the simulators).
 */
public final class Jars {
    /** Names the product jar when it is not where the build puts it. */
    public static final String PRODUCT_PROPERTY = "sendlog.jar";

    private Jars() {}

    /** This jar (or the tools' classes folder, run from an IDE). */
    public static String tools() {
        try {
            return Path.of(Jars.class
                            .getProtectionDomain()
                            .getCodeSource()
                            .getLocation()
                            .toURI())
                    .toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException("the tools' own location is not a path", e);
        }
    }

    /**
     * The product jar: {@code -Dsendlog.jar=...}, else {@code service/target/sendlog.jar} of the project this tools jar
     * was built in ({@code tools/target/sendlog-tools.jar} two folders below the project).
     */
    public static String product() {
        String named = System.getProperty(PRODUCT_PROPERTY);
        if (named != null && !named.isBlank()) {
            return requireFile(Path.of(named));
        }
        Path project = Path.of(tools()).toAbsolutePath().getParent().getParent().getParent();
        return requireFile(project.resolve("service/target/sendlog.jar"));
    }

    private static String requireFile(Path jar) {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("no sendlog.jar at " + jar
                    + ": build it (./mvnw -DskipTests install) or name it with -D" + PRODUCT_PROPERTY + "=<path>");
        }
        return jar.toString();
    }
}
