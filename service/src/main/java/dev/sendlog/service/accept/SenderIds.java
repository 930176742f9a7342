package dev.sendlog.service.accept;

import java.util.regex.Pattern;

/**
 * What a sender id ({@code from}) may be, as SMS networks take them: an alphanumeric name of 1 to 11 characters of
 * {@code [A-Za-z0-9 ]} with at least one letter (shown as the sender, cannot be replied to), an international number
 * in E.164 form, or a short code of 3 to 8 digits.
 */
public final class SenderIds {
    public static final int MAX_LENGTH = 16;
    public static final String RULE = "must be 1 to 11 letters, digits or spaces with at least one letter, an E.164"
            + " number (+ and 7 to 15 digits), or a short code of 3 to 8 digits";

    private static final Pattern ALPHANUMERIC = Pattern.compile("(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11}");
    private static final Pattern INTERNATIONAL = Pattern.compile("\\+[1-9][0-9]{6,14}");
    private static final Pattern SHORT_CODE = Pattern.compile("[0-9]{3,8}");

    private SenderIds() {}

    public static boolean isValid(String from) {
        return ALPHANUMERIC.matcher(from).matches()
                || INTERNATIONAL.matcher(from).matches()
                || SHORT_CODE.matcher(from).matches();
    }

    /** The kind of a valid sender id: what the number plan of an SMPP source address follows from. */
    public enum Kind {
        ALPHANUMERIC,
        INTERNATIONAL,
        SHORT_CODE
    }

    public static Kind kindOf(String from) {
        if (INTERNATIONAL.matcher(from).matches()) {
            return Kind.INTERNATIONAL;
        }
        if (SHORT_CODE.matcher(from).matches()) {
            return Kind.SHORT_CODE;
        }
        if (ALPHANUMERIC.matcher(from).matches()) {
            return Kind.ALPHANUMERIC;
        }
        throw new IllegalArgumentException("not a sender id: " + from);
    }
}
