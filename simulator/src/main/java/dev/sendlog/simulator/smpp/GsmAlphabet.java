package dev.sendlog.simulator.smpp;

import java.io.ByteArrayOutputStream;

/**
 * The GSM 03.38 (3GPP TS 23.038) default alphabet, unpacked: one septet per octet, as SMPP carries it with
 * {@code data_coding} 0. A character of the extension table is the escape 0x1B followed by its code. Written out
 * here rather than taken from a library so that the simulator checks the client against the standard itself,
 * not against another implementation that could share its mistakes.
 */
public final class GsmAlphabet {
    /** The escape to the extension table; in the basic table it has no character of its own. */
    static final int ESCAPE = 0x1B;

    // Basic table, position = septet. Position 0x1B is the escape and never decodes to itself.
    private static final String BASIC = "@£$¥èéùìòÇ\nØø\rÅå"
            + "Δ_ΦΓΛΩΠΨΣΘΞ\u001BÆæßÉ"
            + " !\"#¤%&'()*+,-./"
            + "0123456789:;<=>?"
            + "¡ABCDEFGHIJKLMNO"
            + "PQRSTUVWXYZÄÖÑÜ§"
            + "¿abcdefghijklmno"
            + "pqrstuvwxyzäöñüà";

    private static final char[] EXTENSION = new char[128];

    static {
        if (BASIC.length() != 128) {
            throw new ExceptionInInitializerError("basic table has " + BASIC.length() + " positions");
        }
        EXTENSION[0x0A] = '\f';
        EXTENSION[0x14] = '^';
        EXTENSION[0x28] = '{';
        EXTENSION[0x29] = '}';
        EXTENSION[0x2F] = '\\';
        EXTENSION[0x3C] = '[';
        EXTENSION[0x3D] = '~';
        EXTENSION[0x3E] = ']';
        EXTENSION[0x40] = '|';
        EXTENSION[0x65] = '€';
    }

    private GsmAlphabet() {}

    /**
     * Decodes unpacked septets. An escape followed by a code the extension table does not define decodes as
     * the basic table's character for that code (what 23.038 asks of a receiver).
     *
     * @throws IllegalArgumentException for an octet above 0x7F (packed septets or another alphabet) or an escape
     *     at the very end (a part boundary that split an extension character in two)
     */
    public static String decode(byte[] octets, int offset, int length) {
        StringBuilder text = new StringBuilder(length);
        int end = offset + length;
        for (int i = offset; i < end; i++) {
            int septet = octets[i] & 0xFF;
            if (septet > 0x7F) {
                throw new IllegalArgumentException(
                        "octet 0x" + Integer.toHexString(septet) + " at " + (i - offset) + " is no GSM septet");
            }
            if (septet != ESCAPE) {
                text.append(BASIC.charAt(septet));
                continue;
            }
            if (++i >= end) {
                throw new IllegalArgumentException("escape 0x1B at the end, without the character it escapes");
            }
            int code = octets[i] & 0xFF;
            if (code > 0x7F) {
                throw new IllegalArgumentException("octet 0x" + Integer.toHexString(code) + " after an escape");
            }
            char extended = EXTENSION[code];
            if (extended != 0) {
                text.append(extended);
            } else if (code == ESCAPE) {
                // 0x1B 0x1B is reserved for a further table; a receiver without it shows a space.
                text.append(' ');
            } else {
                text.append(BASIC.charAt(code));
            }
        }
        return text.toString();
    }

    public static String decode(byte[] octets) {
        return decode(octets, 0, octets.length);
    }

    /**
     * Encodes text as unpacked septets, extension characters as two octets.
     *
     * @throws IllegalArgumentException for a character the alphabet does not have
     */
    public static byte[] encode(String text) {
        ByteArrayOutputStream octets = new ByteArrayOutputStream(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            int septet = c == ESCAPE ? -1 : BASIC.indexOf(c);
            if (septet >= 0) {
                octets.write(septet);
                continue;
            }
            int code = extensionCode(c);
            if (code < 0) {
                throw new IllegalArgumentException("'" + c + "' is not in the GSM 03.38 default alphabet");
            }
            octets.write(ESCAPE);
            octets.write(code);
        }
        return octets.toByteArray();
    }

    /** Whether every character of the text is in the default alphabet or its extension table. */
    public static boolean canEncode(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if ((c == ESCAPE || BASIC.indexOf(c) < 0) && extensionCode(c) < 0) {
                return false;
            }
        }
        return true;
    }

    private static int extensionCode(char c) {
        for (int code = 0; code < EXTENSION.length; code++) {
            if (EXTENSION[code] == c && c != 0) {
                return code;
            }
        }
        return -1;
    }
}
