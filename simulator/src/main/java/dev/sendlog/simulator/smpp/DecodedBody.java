package dev.sendlog.simulator.smpp;

/**
 * The text of one submit_sm and where it sits in a concatenated message.
 *
 * @param text       the decoded text of this part, without the UDH
 * @param concatRef  the concatenation reference; 0 when not concatenated
 * @param partNumber 1-based number of this part; 1 when not concatenated
 * @param partCount  parts in the message; 1 when not concatenated
 * @param viaPayload whether the body came in the message_payload TLV instead of short_message
 */
record DecodedBody(String text, int concatRef, int partNumber, int partCount, boolean viaPayload) {}
