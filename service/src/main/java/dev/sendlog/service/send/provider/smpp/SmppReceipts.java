package dev.sendlog.service.send.provider.smpp;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sendlog.events.JsonMappers;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jsmpp.bean.DeliverSm;
import org.jsmpp.bean.OptionalParameter;

/**
 * A delivery receipt ({@code deliver_sm} with the receipt flag in {@code esm_class}) as a callback body for the inbox
 * (docs/api.md, "Callbacks"): {@code id}, {@code status}, {@code timestamp} and {@code errorCode} in the gateway's SMPP
 * vocabulary, read from the receipt text ({@code id: sub: dlvrd: submit date: done date: stat: err:}) and the
 * {@code receipted_message_id} and {@code message_state} TLVs, beside the raw PDU fields under {@code smpp}. The
 * callback worker then maps, matches or parks it exactly as an HTTP callback: an unknown {@code stat}, a date that does
 * not parse, a missing id all park it with these bytes, nothing is guessed here.
 */
final class SmppReceipts {
    private static final ObjectMapper JSON = JsonMappers.pooled();
    private static final Pattern ID = field("id");
    private static final Pattern STAT = field("stat");
    private static final Pattern ERR = field("err");
    private static final Pattern DONE = Pattern.compile("(?i)(?:^|\\s)done date:(\\S*)");
    private static final short RECEIPTED_MESSAGE_ID = 0x001E;
    private static final short MESSAGE_STATE = 0x0427;
    /** SMPP 3.4's message_state values (5.2.28) as the receipt text's stat words. */
    private static final String[] STATES = {
        null, "ENROUTE", "DELIVRD", "EXPIRED", "DELETED", "UNDELIV", "ACCEPTD", "UNKNOWN", "REJECTD"
    };

    private SmppReceipts() {}

    private static Pattern field(String name) {
        return Pattern.compile("(?i)(?:^|\\s)" + name + ":(\\S*)");
    }

    /** The inbox body of a receipt, ids written in the receipts' canonical form of {@code ids}. */
    static byte[] body(DeliverSm pdu, SmppIds ids) {
        byte[] message = pdu.getShortMessage() == null ? new byte[0] : pdu.getShortMessage();
        // Receipt texts are ASCII in practice; read one byte to one character, so nothing is lost or guessed.
        String text = new String(message, StandardCharsets.ISO_8859_1);
        String tlvId = null;
        Integer state = null;
        ObjectNode raw = JSON.createObjectNode();
        raw.put("esmClass", pdu.getEsmClass() & 0xFF);
        raw.put("dataCoding", pdu.getDataCoding() & 0xFF);
        raw.put("sourceAddr", pdu.getSourceAddr());
        raw.put("shortMessage", HexFormat.of().formatHex(message));
        ObjectNode tlvs = raw.putObject("tlvs");
        if (pdu.getOptionalParameters() != null) {
            for (OptionalParameter p : pdu.getOptionalParameters()) {
                byte[] value = p.serialize();
                // serialize() is tag (2), length (2), value: keep the value.
                byte[] v = value.length > 4 ? java.util.Arrays.copyOfRange(value, 4, value.length) : new byte[0];
                tlvs.put(String.format("0x%04X", p.tag), HexFormat.of().formatHex(v));
                if (p.tag == RECEIPTED_MESSAGE_ID) {
                    tlvId = cString(v);
                } else if (p.tag == MESSAGE_STATE && v.length == 1) {
                    state = v[0] & 0xFF;
                }
            }
        }
        ObjectNode node = JSON.createObjectNode();
        String id = tlvId != null ? tlvId : find(ID, text);
        if (id != null) {
            String canonical = ids.fromReceipt(id);
            // An id that is not a number of the receipts' base is kept as sent: it matches nothing and parks.
            node.put("id", canonical != null ? canonical : id);
        }
        String stat = find(STAT, text);
        if (stat == null && state != null && state < STATES.length) {
            stat = STATES[state];
        }
        if (stat != null) {
            node.put("status", stat.toUpperCase(Locale.ROOT));
        }
        String done = find(DONE, text);
        if (done != null) {
            node.put("timestamp", done);
        }
        String err = find(ERR, text);
        if (err != null) {
            node.put("errorCode", err);
        }
        node.put("receiptText", text);
        node.set("smpp", raw);
        try {
            return JSON.writeValueAsBytes(node);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String find(Pattern p, String text) {
        Matcher m = p.matcher(text);
        return m.find() && !m.group(1).isEmpty() ? m.group(1) : null;
    }

    private static String cString(byte[] v) {
        int end = 0;
        while (end < v.length && v[end] != 0) {
            end++;
        }
        return new String(v, 0, end, StandardCharsets.ISO_8859_1);
    }
}
