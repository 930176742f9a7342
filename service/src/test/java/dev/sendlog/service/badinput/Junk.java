package dev.sendlog.service.badinput;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;

/** Nasty values: text from every corner of Unicode, wrong JSON types, invalid UTF-8, deep nesting, random bytes. */
final class Junk {
    /** Strings that break naive SQL, LIKE patterns, escaping, logging and display. */
    static final List<String> NASTY = List.of(
            "'",
            "''",
            "\"",
            "\\",
            "\\\\",
            "\\'",
            "'; DROP TABLE messages; --",
            "\"; DROP TABLE messages; --",
            "' OR '1'='1",
            "1; SELECT pg_sleep(0); --",
            "%",
            "_",
            "%_%",
            "\\%",
            "a%b_c",
            "$1",
            "$$",
            "$tag$ x $tag$",
            "?",
            "::jsonb",
            "E'\\x41'",
            "/* comment */",
            "--",
            "#",
            "${jndi:ldap://x}",
            "{{7*7}}",
            "<script>alert(1)</script>",
            "&amp;",
            "null",
            "NULL",
            "undefined",
            "true",
            "0",
            "-0",
            "1e400",
            "NaN",
            "[]",
            "{}",
            "\\u0000",
            "%00",
            "é",
            "ß",
            "İ",
            "ﬃ",
            "e\u0301",
            "中文",
            "עברית",
            "\u202Eevil",
            "\u200B",
            "\u200D",
            "\uFEFF",
            "\u00A0",
            "\u2028",
            "\u2029",
            "\uFFFD",
            "\uFFFE",
            "\uFFFF",
            "😀",
            "👩‍👩‍👧",
            "🇩🇪",
            "\uD83D\uDE00\uD83D\uDE00",
            "\uDBFF\uDFFF",
            "\t",
            "\r\n",
            " ",
            "  leading",
            "trailing  ",
            "\u0001\u001f\u007f",
            "\u0085",
            "a".repeat(64),
            "+4915112345678",
            "' || (SELECT tenant FROM messages LIMIT 1) || '");

    private static final String[] ALPHABETS = {
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
        "'\";\\%_-/*#$?()[]{}<>|&^~`!@=+,.: ",
        "\t\n\r\u000b\u000c\u0001\u001b\u007f\u0085\u00a0\u2028\u2029\u200b\u200d\ufeff",
        "éßİıﬃçñøåæœŒÆÀÉÎÕÜ",
        "中文字符日本語한국어עבריתالعربيةрусскийελληνικά",
        "\u0301\u0308\u20dd\u0489",
        "\uFFFD\uFFFE\uFFFF\uFDD0",
    };
    private static final String[] EMOJI = {
        "😀", "👍🏽", "👩‍👩‍👧", "🇩🇪", "🏳️‍🌈", "\uDBFF\uDFFF", "\uD800\uDC00", "🀄"
    };

    private final SplittableRandom random;

    Junk(SplittableRandom random) {
        this.random = random;
    }

    SplittableRandom random() {
        return random;
    }

    int below(int n) {
        return random.nextInt(n);
    }

    int between(int fromInclusive, int toInclusive) {
        return random.nextInt(fromInclusive, toInclusive + 1);
    }

    boolean chance(double p) {
        return random.nextDouble() < p;
    }

    @SafeVarargs
    final <T> T pick(T... options) {
        return options[random.nextInt(options.length)];
    }

    <T> T pick(List<T> options) {
        return options.get(random.nextInt(options.size()));
    }

    /** Valid Unicode text (no NUL, no lone surrogate) from every alphabet, emoji and SQL metacharacters. */
    String text(int maxCodePoints) {
        int n = between(1, Math.max(1, maxCodePoints));
        StringBuilder s = new StringBuilder();
        int codePoints = 0;
        while (codePoints < n) {
            if (chance(0.1)) {
                String nasty = pick(NASTY);
                if (codePoints + nasty.codePointCount(0, nasty.length()) > n) {
                    continue;
                }
                s.append(nasty);
                codePoints += nasty.codePointCount(0, nasty.length());
            } else if (chance(0.08)) {
                s.append(pick(EMOJI));
                codePoints = s.codePointCount(0, s.length());
                if (codePoints > n) {
                    return s.substring(0, s.offsetByCodePoints(0, n));
                }
            } else {
                String alphabet = ALPHABETS[chance(0.5) ? 0 : below(ALPHABETS.length)];
                s.append(alphabet.charAt(below(alphabet.length())));
                codePoints++;
            }
        }
        return s.toString();
    }

    /** Text that PostgreSQL cannot store verbatim: it holds a NUL or a lone surrogate somewhere. */
    String unstorableText() {
        String bad = pick("\u0000", "\uD800", "\uDBFF", "\uDC00", "\uDFFF", "\uDC00\uD800");
        String around = text(8);
        int at = below(around.length() + 1);
        while (at > 0 && at < around.length() && Character.isLowSurrogate(around.charAt(at))) {
            at--;
        }
        return around.substring(0, at) + bad + around.substring(at);
    }

    /** A JSON string literal: every control character, quote, backslash and surrogate escaped. */
    static String quote(String s) {
        StringBuilder out = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    boolean loneSurrogate = Character.isHighSurrogate(c)
                            ? i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))
                            : Character.isLowSurrogate(c) && (i == 0 || !Character.isHighSurrogate(s.charAt(i - 1)));
                    if (c < 0x20 || c == 0x7f || loneSurrogate) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    /** A JSON string literal that escapes plain characters too, in the less usual spellings. */
    String quoteOddly(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\' || c < 0x20 || Character.isSurrogate(c) || chance(0.3)) {
                out.append(chance(0.5) ? String.format("\\u%04x", (int) c) : String.format("\\u%04X", (int) c));
            } else if (c == '/' && chance(0.5)) {
                out.append("\\/");
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }

    /** A JSON value of any type but a string. */
    String notAString() {
        return switch (below(16)) {
            case 0 -> "0";
            case 1 -> "-1";
            case 2 -> "1.5";
            case 3 -> "1e400";
            case 4 -> "-1e400";
            case 5 -> "1e-400";
            case 6 -> "9".repeat(between(20, 900));
            case 7 -> "true";
            case 8 -> "false";
            case 9 -> "null";
            case 10 -> "[]";
            case 11 -> "{}";
            case 12 -> "[" + quote(text(10)) + ",1,null]";
            case 13 -> "{" + quote(text(5)) + ":" + quote(text(5)) + "}";
            case 14 -> "-0.0e-0";
            default -> nested(between(2, 50));
        };
    }

    /** Arrays and objects nested {@code depth} deep. */
    String nested(int depth) {
        StringBuilder s = new StringBuilder(depth * 6);
        boolean objects = chance(0.5);
        for (int i = 0; i < depth; i++) {
            s.append(objects ? "{\"a\":" : "[");
        }
        s.append(chance(0.5) ? "1" : quote(text(4)));
        for (int i = 0; i < depth; i++) {
            s.append(objects ? "}" : "]");
        }
        return s.toString();
    }

    /** A byte sequence that is not UTF-8: stray continuation bytes, overlong forms, encoded surrogates, past U+10FFFF. */
    byte[] invalidUtf8() {
        return pick(
                new byte[] {(byte) 0x80},
                new byte[] {(byte) 0xBF, (byte) 0x80},
                new byte[] {(byte) 0xC0, (byte) 0xAF},
                new byte[] {(byte) 0xC1, (byte) 0xBF},
                new byte[] {(byte) 0xE0, (byte) 0x80, (byte) 0xAF},
                new byte[] {(byte) 0xE2, (byte) 0x82},
                new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
                new byte[] {(byte) 0xED, (byte) 0xBF, (byte) 0xBF},
                new byte[] {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80},
                new byte[] {(byte) 0xF5},
                new byte[] {(byte) 0xFE},
                new byte[] {(byte) 0xFF, (byte) 0xFE},
                new byte[] {(byte) 0xF0, (byte) 0x9F, (byte) 0x98},
                new byte[] {(byte) 0xC3, (byte) 0x28});
    }

    /** {@code json} with invalid UTF-8 spliced in, preferably inside a string literal. */
    byte[] withInvalidUtf8(String json) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        int at = below(bytes.length + 1);
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == '"' && chance(0.3)) {
                at = i + 1;
                break;
            }
        }
        byte[] bad = invalidUtf8();
        byte[] out = new byte[bytes.length + bad.length];
        System.arraycopy(bytes, 0, out, 0, at);
        System.arraycopy(bad, 0, out, at, bad.length);
        System.arraycopy(bytes, at, out, at + bad.length, bytes.length - at);
        return out;
    }

    byte[] bytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    /** A string of exactly {@code n} code points, cheap to build (huge values). */
    String huge(int n) {
        return String.valueOf(pick('x', 'é', '\'', '%')).repeat(n);
    }

    /** Printable ASCII without spaces, for keys and identifiers. */
    String token(int length) {
        String alphabet = "abcdefghijklmnopqrstuvwxyz0123456789-_.~";
        StringBuilder s = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            s.append(alphabet.charAt(below(alphabet.length())));
        }
        return s.toString();
    }
}
