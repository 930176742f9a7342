package dev.sendlog.simulator.smpp;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * One delivery receipt the simulator owes a client, until the client acknowledges it. Its bytes are fixed at the
 * first attempt, so every retry is the same receipt (as a real SMSC resends it), with the same done date.
 */
final class PendingReceipt {
    private static final DateTimeFormatter RECEIPT_DATE =
            DateTimeFormatter.ofPattern("yyMMddHHmm", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final int TEXT_CHARS = 20;

    final SmscState state;
    final SmscSubmit submit;
    final byte destTon;
    final byte destNpi;
    final String receiptId;
    final String stat;
    private int failedAttempts;
    private byte[] shortMessage;

    /**
     * @param submit    the accepted part this receipt is about
     * @param destTon   the submit's destination TON, which becomes the receipt's source TON
     * @param destNpi   the submit's destination NPI
     * @param receiptId the id the receipt carries (the message_id, or its decimal form)
     * @param stat      the stat word, for example DELIVRD or ENROUTE
     */
    PendingReceipt(SmscState state, SmscSubmit submit, byte destTon, byte destNpi, String receiptId, String stat) {
        this.state = state;
        this.submit = submit;
        this.destTon = destTon;
        this.destNpi = destNpi;
        this.receiptId = receiptId;
        this.stat = stat;
    }

    /** The standard receipt text, built at the first call and the same ever after. */
    synchronized byte[] shortMessage(Instant now) {
        if (shortMessage == null) {
            shortMessage =
                    text(receiptId, stat, submit.at(), now, submit.text()).getBytes(StandardCharsets.US_ASCII);
        }
        return shortMessage;
    }

    /** Counts a failed attempt and returns how many there were. */
    synchronized int failed() {
        return ++failedAttempts;
    }

    /** The value of the message_state TLV for the stat word; a word SMPP does not know is UNKNOWN (7). */
    byte messageState() {
        return messageState(stat);
    }

    static byte messageState(String stat) {
        return switch (stat) {
            case "ENROUTE" -> 1;
            case "DELIVRD" -> 2;
            case "EXPIRED" -> 3;
            case "DELETED" -> 4;
            case "UNDELIV" -> 5;
            case "ACCEPTD" -> 6;
            case "REJECTD" -> 8;
            default -> 7;
        };
    }

    /**
     * {@code id:<id> sub:001 dlvrd:<001|000> submit date:<yyMMddHHmm> done date:<yyMMddHHmm> stat:<STAT> err:000
     * text:<first 20 characters>}, dates in UTC. The text is kept to printable ASCII ('?' for anything else), as the
     * receipt goes out with data_coding 0 and many SMSCs copy only the raw first octets.
     */
    static String text(String id, String stat, Instant submitAt, Instant doneAt, String messageText) {
        String first = messageText.length() > TEXT_CHARS ? messageText.substring(0, TEXT_CHARS) : messageText;
        StringBuilder printable = new StringBuilder(first.length());
        first.chars().forEach(c -> printable.append(c >= 0x20 && c < 0x7F ? (char) c : '?'));
        return "id:" + id
                + " sub:001 dlvrd:" + ("DELIVRD".equals(stat) ? "001" : "000")
                + " submit date:" + RECEIPT_DATE.format(submitAt)
                + " done date:" + RECEIPT_DATE.format(doneAt)
                + " stat:" + stat
                + " err:000 text:" + printable;
    }
}
