package dev.sendlog.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/design.md lists the twenty invariants, each with the tests that prove it (issue 25). This keeps the list true: all
 * twenty are there, each names a test or a script, and every test class, test method and script it names exists, so a
 * renamed or moved test cannot leave an invariant pointing at nothing.
 */
class DesignInvariantsTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern ITEM = Pattern.compile("(?m)^(\\d+)\\. \\*\\*");
    /** A class named in backticks, with a method after a dot: {@code ReceiptsTest.receiptsMatch...}. */
    private static final Pattern NAMED = Pattern.compile("`([A-Z][A-Za-z0-9]*)(?:\\.([a-z][A-Za-z0-9]*))?`");

    private static final Pattern SCRIPT = Pattern.compile("`(scripts/[a-z-]+)");
    private static final Pattern TEST_NAME = Pattern.compile(".*(Test|Tests|Properties)");

    @Test
    void everyInvariantNamesTestsOrScriptsThatExist() throws IOException {
        String design = Files.readString(ROOT.resolve("docs/design.md"));
        int start = design.indexOf("## Invariants, and what proves each");
        assertThat(start).as("the invariants section").isNotNegative();
        int end = design.indexOf("\n## ", start + 1);
        String section = design.substring(start, end < 0 ? design.length() : end);
        Map<String, Path> testFiles = testSources();

        List<Integer> numbers = new ArrayList<>();
        Matcher item = ITEM.matcher(section);
        List<Integer> starts = new ArrayList<>();
        while (item.find()) {
            numbers.add(Integer.parseInt(item.group(1)));
            starts.add(item.start());
        }
        assertThat(numbers).as("the invariants, in order").containsExactlyElementsOf(range(1, 20));

        for (int i = 0; i < starts.size(); i++) {
            String text =
                    section.substring(starts.get(i), i + 1 < starts.size() ? starts.get(i + 1) : section.length());
            String invariant = "invariant " + numbers.get(i);
            int proofs = 0;
            Matcher named = NAMED.matcher(text);
            while (named.find()) {
                String name = named.group(1);
                Path file = testFiles.get(name);
                if (file == null) {
                    assertThat(TEST_NAME.matcher(name).matches())
                            .as(invariant + " names " + name + ", a test no test source holds")
                            .isFalse();
                    continue;
                }
                proofs++;
                String method = named.group(2);
                if (method != null) {
                    assertThat(Files.readString(file))
                            .as(invariant + " names " + name + "." + method)
                            .containsPattern("[\\s>]" + method + "\\(");
                }
            }
            Matcher script = SCRIPT.matcher(text);
            while (script.find()) {
                assertThat(ROOT.resolve(script.group(1)))
                        .as(invariant + " names " + script.group(1))
                        .exists();
                proofs++;
            }
            assertThat(proofs)
                    .as(invariant + " names a test or a script that proves it")
                    .isPositive();
        }
    }

    private static List<Integer> range(int from, int to) {
        List<Integer> r = new ArrayList<>();
        for (int n = from; n <= to; n++) {
            r.add(n);
        }
        return r;
    }

    /** Every test source of the project by its class name. */
    private static Map<String, Path> testSources() throws IOException {
        Map<String, Path> files = new HashMap<>();
        try (Stream<Path> all = Files.walk(ROOT)) {
            all.filter(p -> p.toString().contains("/src/test/java/")
                            && p.toString().endsWith(".java"))
                    .filter(p -> !p.toString().contains("/target/"))
                    .forEach(p -> files.put(p.getFileName().toString().replace(".java", ""), p));
        }
        return files;
    }
}
