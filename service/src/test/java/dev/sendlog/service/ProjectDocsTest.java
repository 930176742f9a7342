package dev.sendlog.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The documents that ship with the code stay findable (issue 25): the README is a front page, under 200 lines, and
 * every file it links to is in the project (the design, API and operations documents a clone must be able to read).
 */
class ProjectDocsTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)#\\s]+)(#[^)]*)?\\)");

    @Test
    void theReadmeIsAFrontPageUnderTwoHundredLines() throws IOException {
        List<String> lines = Files.readAllLines(ROOT.resolve("README.md"));
        assertThat(lines.size()).as("README.md lines").isLessThan(200);
    }

    @Test
    void everyFileTheReadmeAndTheDocsLinkToIsInTheProject() throws IOException {
        for (String doc : List.of(
                "README.md",
                "docs/design.md",
                "docs/api.md",
                "docs/operations.md",
                "docs/proof.md",
                "benchmarks/README.md")) {
            Path file = ROOT.resolve(doc);
            assertThat(file).as(doc).exists();
            Matcher m = LINK.matcher(Files.readString(file));
            while (m.find()) {
                String target = m.group(1);
                if (target.startsWith("http://") || target.startsWith("https://") || target.startsWith("mailto:")) {
                    continue;
                }
                assertThat(file.getParent().resolve(target).normalize())
                        .as(doc + " links to " + target)
                        .exists();
            }
        }
    }
}
