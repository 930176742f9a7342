package dev.sendlog.service.send.provider.smpp;

import org.jsmpp.bean.NumberingPlanIndicator;
import org.jsmpp.bean.TypeOfNumber;

/**
 * An address as a {@code submit_sm} carries it: type of number, numbering plan and the digits or text. The sender ids
 * the API admits (docs/api.md, "Sender ids") map as SMSCs expect them: an E.164 number is international/ISDN without
 * its {@code +}, a 3 to 8 digit short code network-specific/unknown, an alphanumeric id alphanumeric/unknown.
 */
record SmppAddress(TypeOfNumber ton, NumberingPlanIndicator npi, String address) {
    /** No source address: the SMSC puts in the account's own default. */
    static final SmppAddress NONE = new SmppAddress(TypeOfNumber.UNKNOWN, NumberingPlanIndicator.UNKNOWN, "");

    /** The source address for a sender id, or for {@code fallback} (the gateway's) when the message names none. */
    static SmppAddress source(String sender, String fallback) {
        String id = sender == null || sender.isEmpty() ? fallback : sender;
        if (id == null || id.isEmpty()) {
            return NONE;
        }
        if (id.startsWith("+")) {
            return new SmppAddress(TypeOfNumber.INTERNATIONAL, NumberingPlanIndicator.ISDN, id.substring(1));
        }
        if (id.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return new SmppAddress(TypeOfNumber.NETWORK_SPECIFIC, NumberingPlanIndicator.UNKNOWN, id);
        }
        return new SmppAddress(TypeOfNumber.ALPHANUMERIC, NumberingPlanIndicator.UNKNOWN, id);
    }

    /** A recipient: the API takes E.164 numbers only, sent international/ISDN without the {@code +}. */
    static SmppAddress destination(String e164) {
        String digits = e164.startsWith("+") ? e164.substring(1) : e164;
        return new SmppAddress(TypeOfNumber.INTERNATIONAL, NumberingPlanIndicator.ISDN, digits);
    }
}
