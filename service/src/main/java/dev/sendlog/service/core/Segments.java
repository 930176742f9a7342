package dev.sendlog.service.core;

/**
 * How many SMS segments a body takes, the unit the ledger charges: GSM 03.38 text fits 160 characters
 * in one segment and 153 per segment when split; anything else is UCS-2 with 70 and 67.
 */
public final class Segments {
    private static final String GSM_BASIC = "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?"
            + "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà";
    private static final String GSM_EXTENDED = "^{}\\[~]|€\f";

    private Segments() {
    }

    public static int of(String body) {
        int gsmLength = 0;
        boolean gsm = true;
        for (int i = 0; i < body.length() && gsm; i++) {
            char c = body.charAt(i);
            if (GSM_BASIC.indexOf(c) >= 0) {
                gsmLength++;
            } else if (GSM_EXTENDED.indexOf(c) >= 0) {
                gsmLength += 2;
            } else {
                gsm = false;
            }
        }
        if (gsm) {
            return gsmLength <= 160 ? 1 : (gsmLength + 152) / 153;
        }
        int units = body.length();
        return units <= 70 ? 1 : (units + 66) / 67;
    }
}
