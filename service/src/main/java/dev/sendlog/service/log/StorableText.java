package dev.sendlog.service.log;

/**
 * What PostgreSQL can store and compare verbatim as {@code text}: no NUL character, and valid Unicode (no unpaired
 * surrogate, which would not survive its encoding to UTF-8). Every text that reaches a column from outside (a request,
 * a callback, a status query's answer, a search parameter) is checked here first, so it is refused with a reason
 * instead of failing in the database or being stored changed.
 */
public final class StorableText {
    private StorableText() {}

    /** Why PostgreSQL could not store (or compare) the text verbatim, or null when it can. */
    public static String problem(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == 0) {
                return "must not contain the NUL character";
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(i + 1))) {
                    return "contains an unpaired surrogate (not valid Unicode)";
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return "contains an unpaired surrogate (not valid Unicode)";
            }
        }
        return null;
    }
}
