package dev.sendlog.service.send.provider.smpp;

import java.math.BigInteger;
import java.util.Locale;

/**
 * A gateway's {@code idFormat}: how its SMSC writes a message id in receipts compared with its {@code submit_sm_resp}.
 * Every id is kept in the receipts' form, so the provider id recorded at acceptance is the one its receipts name:
 * {@code hex-to-decimal} turns the response's hex id into decimal, {@code decimal-to-hex} the decimal one into hex
 * (lower case, no leading zeros), and a receipt's id is written the same canonical way. {@code as-is} changes nothing.
 */
enum SmppIds {
    AS_IS,
    HEX_TO_DECIMAL,
    DECIMAL_TO_HEX;

    static SmppIds of(String setting) {
        return switch (setting) {
            case "as-is" -> AS_IS;
            case "hex-to-decimal" -> HEX_TO_DECIMAL;
            case "decimal-to-hex" -> DECIMAL_TO_HEX;
            default -> throw new IllegalArgumentException("idFormat must be as-is, hex-to-decimal or decimal-to-hex");
        };
    }

    /** The id of a {@code submit_sm_resp} as receipts will name it; null when it is not a number of the stated base. */
    String fromResponse(String id) {
        return switch (this) {
            case AS_IS -> id;
            case HEX_TO_DECIMAL -> convert(id, 16, 10);
            case DECIMAL_TO_HEX -> convert(id, 10, 16);
        };
    }

    /** A receipt's id in canonical form; null when it is not a number of the receipts' base. */
    String fromReceipt(String id) {
        return switch (this) {
            case AS_IS -> id;
            case HEX_TO_DECIMAL -> convert(id, 10, 10);
            case DECIMAL_TO_HEX -> convert(id, 16, 16);
        };
    }

    private static String convert(String id, int from, int to) {
        if (id == null || id.isEmpty() || id.length() > 64) {
            return null;
        }
        try {
            BigInteger n = new BigInteger(id, from);
            return n.signum() < 0 ? null : n.toString(to).toLowerCase(Locale.ROOT);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
