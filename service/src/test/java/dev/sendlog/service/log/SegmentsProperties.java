package dev.sendlog.service.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The segment count against the GSM 03.38 rules (3GPP TS 23.038 and the concatenation of TS 23.040): 160 septets in one
 * segment, 153 per part, an extension-table character two septets whose escape is never split from it; otherwise UCS-2,
 * 70 and 67 UTF-16 units, a surrogate pair never split. Random bodies (seeded: the seed is in each test's name) checked
 * against an encoding written here independently of {@link Segments}, plus the boundary cases by hand.
 */
class SegmentsProperties {
    private static final String BASIC = "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?"
            + "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà";
    private static final String EXTENDED = "^{}\\[~]|€\f";
    private static final String[] OTHER = {"ж", "中", "ç", "😀", "👍🏽", "ß"};
    /** The escape septet (0x1B in the table; a marker of its own here, apart from every table index). */
    private static final int ESC = -1;

    @TestFactory
    Stream<DynamicTest> everyBodySplitsIntoWholeCharactersWithinThePartLimits() {
        long base = 0x5E6_3E47L;
        return IntStream.range(0, 400).mapToObj(i -> {
            long seed = base + i;
            return DynamicTest.dynamicTest("seed " + seed, () -> {
                Random random = new Random(seed);
                for (int k = 0; k < 10; k++) {
                    check(body(random));
                }
            });
        });
    }

    @Test
    void boundaries() {
        assertThat(Segments.of("")).isEqualTo(1);
        assertThat(Segments.of("a".repeat(160))).isEqualTo(1);
        assertThat(Segments.of("a".repeat(161))).isEqualTo(2);
        assertThat(Segments.of("a".repeat(306))).isEqualTo(2);
        assertThat(Segments.of("a".repeat(307))).isEqualTo(3);
        assertThat(Segments.of("€".repeat(80))).as("160 septets").isEqualTo(1);
        assertThat(Segments.of("€".repeat(80) + "a")).as("161 septets").isEqualTo(2);
        // 306 septets fit two parts of 153 only if the escape may be split: it may not, so three.
        assertThat(Segments.split("a".repeat(152) + "€" + "a".repeat(152)))
                .extracting(String::length)
                .containsExactly(152, 152, 1);
        assertThat(Segments.of("ж".repeat(70))).isEqualTo(1);
        assertThat(Segments.of("ж".repeat(71))).isEqualTo(2);
        assertThat(Segments.of("ж".repeat(134))).isEqualTo(2);
        assertThat(Segments.of("ж".repeat(135))).isEqualTo(3);
        // 134 UTF-16 units, but the emoji's surrogate pair cannot straddle the first boundary.
        assertThat(Segments.split("ж".repeat(66) + "😀" + "ж".repeat(66)))
                .extracting(String::length)
                .containsExactly(66, 67, 1);
        assertThat(Segments.of("a".repeat(159) + "ж"))
                .as("one non-GSM character makes it UCS-2")
                .isEqualTo(3);
    }

    private static void check(String body) {
        List<String> parts = Segments.split(body);
        assertThat(String.join("", parts)).as("the parts, joined").isEqualTo(body);
        assertThat(Segments.of(body)).isEqualTo(parts.size());
        boolean gsm =
                body.codePoints().allMatch(c -> c < 0x10000 && (BASIC.indexOf(c) >= 0 || EXTENDED.indexOf(c) >= 0));
        assertThat(Segments.isGsm7(body)).isEqualTo(gsm);
        if (parts.size() == 1) {
            assertThat(units(body, gsm)).as("a single segment").isLessThanOrEqualTo(gsm ? 160 : 70);
            return;
        }
        assertThat(units(body, gsm)).as("a body split in parts did not fit one").isGreaterThan(gsm ? 160 : 70);
        int limit = gsm ? 153 : 67;
        for (int p = 0; p < parts.size(); p++) {
            String part = parts.get(p);
            assertThat(part).as("part %d", p).isNotEmpty();
            assertThat(units(part, gsm)).as("part %d of %s", p, parts).isLessThanOrEqualTo(limit);
            if (gsm) {
                List<Integer> septets = septets(part);
                assertThat(septets.getLast())
                        .as("part %d ends with an escape", p)
                        .isNotEqualTo(ESC);
            } else {
                assertThat(Character.isHighSurrogate(part.charAt(part.length() - 1)))
                        .as("part %d ends inside a pair", p)
                        .isFalse();
            }
            if (p < parts.size() - 1) {
                String next = parts.get(p + 1);
                String first = new String(Character.toChars(next.codePointAt(0)));
                assertThat(units(part, gsm) + units(first, gsm))
                        .as("part %d could have taken the next character", p)
                        .isGreaterThan(limit);
            }
        }
    }

    /** Septets (GSM, as encoded below) or UTF-16 units. */
    private static int units(String s, boolean gsm) {
        return gsm ? septets(s).size() : s.length();
    }

    /** The GSM 03.38 septets of {@code s}: an extension-table character is the escape and its code. */
    private static List<Integer> septets(String s) {
        List<Integer> out = new ArrayList<>();
        for (char c : s.toCharArray()) {
            int basic = BASIC.indexOf(c);
            if (basic >= 0) {
                out.add(basic);
            } else {
                out.add(ESC);
                out.add(EXTENDED.indexOf(c));
            }
        }
        return out;
    }

    private static String body(Random random) {
        int length = random.nextInt(8) == 0 ? random.nextInt(10) : 100 + random.nextInt(500);
        boolean gsmOnly = random.nextBoolean();
        double extendedShare = random.nextDouble() * 0.5;
        StringBuilder b = new StringBuilder();
        while (b.length() < length) {
            double r = random.nextDouble();
            if (!gsmOnly && r < 0.05) {
                b.append(OTHER[random.nextInt(OTHER.length)]);
            } else if (r < extendedShare) {
                b.append(EXTENDED.charAt(random.nextInt(EXTENDED.length())));
            } else {
                b.append(BASIC.charAt(random.nextInt(BASIC.length())));
            }
        }
        return b.toString();
    }
}
