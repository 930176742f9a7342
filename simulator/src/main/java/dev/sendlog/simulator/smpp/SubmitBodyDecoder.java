package dev.sendlog.simulator.smpp;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import org.jsmpp.SMPPConstant;

/**
 * Decodes a submit_sm body the way an SMSC must before it can deliver it: the alphabet of {@code data_coding}
 * and, with the UDHI bit of {@code esm_class}, the user data header in front of the text. Strict on purpose: a
 * client that splits a message between the two octets of a GSM extension character or the two halves of a
 * UTF-16 surrogate pair, or sends packed septets, gets an error here instead of a garbled message on a phone.
 */
final class SubmitBodyDecoder {
    static final byte DCS_GSM = 0x00;
    static final byte DCS_LATIN1 = 0x03;
    static final byte DCS_UCS2 = 0x08;
    static final int ESM_UDHI = 0x40;

    private static final int IE_CONCAT_8 = 0x00;
    private static final int IE_CONCAT_16 = 0x08;

    private SubmitBodyDecoder() {}

    /**
     * @param shortMessage the short_message field, possibly empty
     * @param payload      the value of the message_payload TLV, or null when absent
     */
    static DecodedBody decode(byte dataCoding, byte esmClass, byte[] shortMessage, byte[] payload)
            throws InvalidBodyException {
        byte[] body = shortMessage == null ? new byte[0] : shortMessage;
        boolean viaPayload = payload != null;
        if (viaPayload) {
            if (body.length > 0) {
                throw new InvalidBodyException(
                        SMPPConstant.STAT_ESME_RINVMSGLEN, "both short_message and message_payload carry a body");
            }
            body = payload;
        }
        int offset = 0;
        int concatRef = 0;
        int partNumber = 1;
        int partCount = 1;
        if ((esmClass & ESM_UDHI) != 0) {
            if (body.length < 1) {
                throw invalidLength("UDHI set but the body is empty");
            }
            int headerLength = body[0] & 0xFF;
            if (1 + headerLength > body.length) {
                throw invalidLength("UDH length " + headerLength + " exceeds the body of " + body.length + " octets");
            }
            int position = 1;
            int end = 1 + headerLength;
            while (position < end) {
                if (position + 2 > end) {
                    throw invalidLength("UDH information element header cut at octet " + position);
                }
                int identifier = body[position] & 0xFF;
                int length = body[position + 1] & 0xFF;
                int data = position + 2;
                if (data + length > end) {
                    throw invalidLength(
                            "UDH information element 0x" + Integer.toHexString(identifier) + " runs past the header");
                }
                if (identifier == IE_CONCAT_8 || identifier == IE_CONCAT_16) {
                    int expected = identifier == IE_CONCAT_8 ? 3 : 4;
                    if (length != expected) {
                        throw invalidLength("concatenation element 0x0" + identifier + " has length " + length);
                    }
                    concatRef = identifier == IE_CONCAT_8
                            ? body[data] & 0xFF
                            : ((body[data] & 0xFF) << 8) | (body[data + 1] & 0xFF);
                    partCount = body[data + expected - 2] & 0xFF;
                    partNumber = body[data + expected - 1] & 0xFF;
                    if (partCount == 0 || partNumber == 0 || partNumber > partCount) {
                        throw invalidLength("concatenation part " + partNumber + " of " + partCount);
                    }
                }
                position = data + length;
            }
            offset = end;
        }
        String text = text(dataCoding, body, offset, body.length - offset);
        return new DecodedBody(text, concatRef, partNumber, partCount, viaPayload);
    }

    private static String text(byte dataCoding, byte[] body, int offset, int length) throws InvalidBodyException {
        switch (dataCoding) {
            case DCS_GSM -> {
                try {
                    return GsmAlphabet.decode(body, offset, length);
                } catch (IllegalArgumentException e) {
                    throw new InvalidBodyException(SMPPConstant.STAT_ESME_RINVMSGLEN, "GSM 03.38: " + e.getMessage());
                }
            }
            case DCS_LATIN1 -> {
                return new String(body, offset, length, StandardCharsets.ISO_8859_1);
            }
            case DCS_UCS2 -> {
                if (length % 2 != 0) {
                    throw invalidLength("UCS-2 text of odd length " + length);
                }
                try {
                    return StandardCharsets.UTF_16BE
                            .newDecoder()
                            .onMalformedInput(CodingErrorAction.REPORT)
                            .onUnmappableCharacter(CodingErrorAction.REPORT)
                            .decode(ByteBuffer.wrap(body, offset, length))
                            .toString();
                } catch (CharacterCodingException e) {
                    throw invalidLength("UCS-2 text with a lone surrogate");
                }
            }
            default ->
                throw new InvalidBodyException(
                        SMPPConstant.STAT_ESME_RINVDCS, "data_coding 0x" + Integer.toHexString(dataCoding & 0xFF));
        }
    }

    private static InvalidBodyException invalidLength(String message) {
        return new InvalidBodyException(SMPPConstant.STAT_ESME_RINVMSGLEN, message);
    }
}
