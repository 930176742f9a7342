package dev.sendlog.service.badinput;

/** Making generated text readable in a failure report. */
final class Text {
    private Text() {}

    static String clip(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max) + "...(" + s.length() + " chars)";
    }

    /** Control characters, surrogates and other invisible code units shown as \\uXXXX. */
    static String visible(String s) {
        StringBuilder out = new StringBuilder(Math.min(s.length(), 2000));
        for (int i = 0; i < s.length() && out.length() < 2000; i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7f || Character.isSurrogate(c) || c == '\uFFFD') {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
