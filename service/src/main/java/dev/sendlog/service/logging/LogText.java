package dev.sendlog.service.logging;

/**
 * Outside text (a provider's status word, a parked reason that quotes it) as it may appear inside one log line: a
 * newline in it would start a line that looks like ours, so control characters, line and paragraph separators and
 * lone surrogates are written as escapes, quotes and backslashes too (the value sits in {@code key="..."}), and
 * the text is clipped.
 */
public final class LogText {
    /** Long enough for any field we log (a callback field is at most 256 characters), short enough to keep a line. */
    static final int MAX_CHARS = 512;

    private LogText() {}

    public static String escape(String text) {
        if (text == null) {
            return "null";
        }
        int shown = Math.min(text.length(), MAX_CHARS);
        StringBuilder out = new StringBuilder(shown + 16);
        for (int i = 0; i < shown; i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '"' -> out.append("\\\"");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    boolean pairedHigh = Character.isHighSurrogate(c)
                            && i + 1 < text.length()
                            && Character.isLowSurrogate(text.charAt(i + 1));
                    boolean pairedLow =
                            Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(text.charAt(i - 1));
                    if (Character.isISOControl(c)
                            || c == '\u2028'
                            || c == '\u2029'
                            || (Character.isSurrogate(c) && !pairedHigh && !pairedLow)) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        if (text.length() > shown) {
            out.append("...(").append(text.length() - shown).append(" more chars)");
        }
        return out.toString();
    }
}
