package dev.sendlog.simulator.smpp;

import java.time.Instant;

/**
 * One accepted submit_sm (one part of a long message), as the SMSC simulator recorded it.
 *
 * @param messageId          the message_id assigned (as sent in submit_sm_resp, or as it would have been when lost)
 * @param systemId           the system_id of the session it came on
 * @param sourceAddr         source_addr
 * @param sourceTon          source_addr_ton
 * @param sourceNpi          source_addr_npi
 * @param destAddr           destination_addr
 * @param dataCoding         data_coding
 * @param esmClass           esm_class
 * @param registeredDelivery registered_delivery (recorded; receipts follow {@link SmscConfig#receipts()} regardless)
 * @param validityPeriod     validity_period as sent, null or empty when absent
 * @param text               the decoded text of this part, without the UDH
 * @param concatRef          concatenation reference, 0 when not concatenated
 * @param partNumber         1-based part number, 1 when not concatenated
 * @param partCount          parts in the message, 1 when not concatenated
 * @param viaPayload         whether the body came in the message_payload TLV (0x0424) instead of short_message
 * @param at                 when the simulator accepted it
 */
public record SmscSubmit(
        String messageId,
        String systemId,
        String sourceAddr,
        byte sourceTon,
        byte sourceNpi,
        String destAddr,
        byte dataCoding,
        byte esmClass,
        byte registeredDelivery,
        String validityPeriod,
        String text,
        int concatRef,
        int partNumber,
        int partCount,
        boolean viaPayload,
        Instant at) {}
