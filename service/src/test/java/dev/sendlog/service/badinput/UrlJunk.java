package dev.sendlog.service.badinput;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/** Path segments and query values: properly encoded nasty text, broken percent escapes, raw bytes URLs may not hold. */
final class UrlJunk {
    private final Junk junk;

    UrlJunk(Junk junk) {
        this.junk = junk;
    }

    static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** The UTF-8 bytes of {@code text} as ISO-8859-1 chars: written to the wire as raw, unencoded bytes. */
    static String raw(String text) {
        return new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1)
                .replace("\r", "")
                .replace("\n", "")
                .replace(" ", "");
    }

    /** A value for a query parameter or path segment, as it goes on the wire. */
    String value() {
        return switch (junk.below(12)) {
            case 0 -> "%00";
            case 1 -> encode(junk.unstorableText());
            case 2 -> junk.pick("%", "%Z", "%ZZ", "%C3%28", "%ED%A0%80", "%F4%90%80%80", "%C0%AF", "%E2%82", "%FF%FE");
            case 3 -> raw(junk.text(10));
            case 4 ->
                junk.pick(
                        "\"",
                        "<>",
                        "{}",
                        "|",
                        "^",
                        "`",
                        "\\",
                        "[]",
                        "#frag",
                        "%2F",
                        "..",
                        "%2e%2e",
                        ";x=y",
                        "a%26b%3Dc");
            case 5 -> encode(junk.huge(junk.pick(100, 2000, 9000)));
            case 6 -> "";
            default -> encode(junk.text(20));
        };
    }
}
