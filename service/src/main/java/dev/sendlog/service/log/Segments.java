package dev.sendlog.service.log;

import java.util.ArrayList;
import java.util.List;

/**
 * How many SMS segments a body takes: the unit the ledger charges and GET one shows as {@code segments}.
 *
 * <p>GSM 03.38 (3GPP TS 23.038) text is counted in septets: a character of the basic table is one, a character of the
 * extension table two (the escape 0x1B and the character). One segment holds 160 septets; a longer body is sent as
 * concatenated parts of 153 (the user data header takes the rest), and an escape is never split from its character,
 * so a part that cannot take a two-septet character whole ends one septet short. Any other body goes as UCS-2: 70
 * UTF-16 units in one segment, 67 per part, and a surrogate pair (an emoji, say) is never split across parts either.
 * The parts are filled greedily, as senders and SMSCs split them.
 */
public final class Segments {
    static final int GSM_SINGLE = 160;
    static final int GSM_PART = 153;
    static final int UCS2_SINGLE = 70;
    static final int UCS2_PART = 67;

    private static final String GSM_BASIC = "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?"
            + "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà";
    private static final String GSM_EXTENDED = "^{}\\[~]|€\f";

    private Segments() {}

    /** Where the escape to the extension table sits in the basic table (GSM_BASIC leaves it out). */
    private static final int ESCAPE = 0x1B;
    /** The extension table's codes, in the order of GSM_EXTENDED. */
    private static final byte[] EXTENDED_CODES = {0x14, 0x28, 0x29, 0x2F, 0x3C, 0x3D, 0x3E, 0x40, 0x65, 0x0A};

    /**
     * {@code body} in the GSM 03.38 default alphabet, unpacked (one septet to an octet, as SMPP's {@code data_coding}
     * 0 carries it): a basic-table character is its code, an extension-table one the escape 0x1B and its code.
     *
     * @throws IllegalArgumentException when {@code body} is not {@link #isGsm7 GSM 7-bit} text
     */
    public static byte[] gsm7Unpacked(String body) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(body.length() + 8);
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            int basic = GSM_BASIC.indexOf(c);
            if (basic >= 0) {
                out.write(basic < ESCAPE ? basic : basic + 1);
                continue;
            }
            int extended = GSM_EXTENDED.indexOf(c);
            if (extended < 0) {
                throw new IllegalArgumentException("not GSM 03.38 text at index " + i);
            }
            out.write(ESCAPE);
            out.write(EXTENDED_CODES[extended]);
        }
        return out.toByteArray();
    }

    /** The number of segments {@code body} is sent (and charged) as. */
    public static int of(String body) {
        return split(body).size();
    }

    /** Whether every character of {@code body} is in the GSM 03.38 basic or extension table. */
    public static boolean isGsm7(String body) {
        for (int i = 0; i < body.length(); i++) {
            if (septets(body.charAt(i)) == 0) {
                return false;
            }
        }
        return true;
    }

    /** The septets a character takes in GSM 03.38: 1 (basic table), 2 (extension table) or 0 (not GSM). */
    static int septets(char c) {
        if (GSM_BASIC.indexOf(c) >= 0) {
            return 1;
        }
        return GSM_EXTENDED.indexOf(c) >= 0 ? 2 : 0;
    }

    /** The parts {@code body} is sent as, in order; one part when it fits a single segment (an empty body too). */
    public static List<String> split(String body) {
        boolean gsm = isGsm7(body);
        int single = gsm ? GSM_SINGLE : UCS2_SINGLE;
        int part = gsm ? GSM_PART : UCS2_PART;
        if (weight(body, 0, body.length(), gsm) <= single) {
            return List.of(body);
        }
        List<String> parts = new ArrayList<>();
        int start = 0;
        int used = 0;
        int i = 0;
        while (i < body.length()) {
            int width = gsm ? 1 : Character.charCount(body.codePointAt(i));
            int w = gsm ? septets(body.charAt(i)) : width;
            if (used + w > part) {
                parts.add(body.substring(start, i));
                start = i;
                used = 0;
            }
            used += w;
            i += width;
        }
        parts.add(body.substring(start));
        return parts;
    }

    /** Septets (GSM) or UTF-16 units (UCS-2) of {@code body[from, to)}. */
    static int weight(String body, int from, int to, boolean gsm) {
        if (!gsm) {
            return to - from;
        }
        int w = 0;
        for (int i = from; i < to; i++) {
            w += septets(body.charAt(i));
        }
        return w;
    }
}
