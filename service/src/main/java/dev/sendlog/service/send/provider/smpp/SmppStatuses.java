package dev.sendlog.service.send.provider.smpp;

import dev.sendlog.service.send.provider.SubmitOutcome;
import java.util.Map;

/**
 * What an SMSC's error status on a {@code submit_sm_resp} means for the message (docs/api.md, "SMPP gateways"). Any
 * error status means the SMSC did not take the message, so none of them is an unknown outcome:
 * <ul>
 *   <li>{@code ESME_RTHROTTLED} and {@code ESME_RMSGQFUL}: too fast for now; the gateway slows down and the same
 *       attempt submits again (no attempt used).
 *   <li>Statuses about the message itself (its addresses, length, coding, validity): permanent, REJECTED.
 *   <li>Every other status (system errors, not bound, submit failed, any status this table does not know):
 *       transient and certainly not taken, so a routed message may pass to its next gateway.
 * </ul>
 */
final class SmppStatuses {
    static final int THROTTLED = 0x58;
    static final int MESSAGE_QUEUE_FULL = 0x14;

    /** The permanent ones, with the names SMPP 3.4 (and 5.0, for the data coding) gives them. */
    private static final Map<Integer, String> PERMANENT = Map.ofEntries(
            Map.entry(0x01, "ESME_RINVMSGLEN invalid message length"),
            Map.entry(0x0A, "ESME_RINVSRCADR invalid source address"),
            Map.entry(0x0B, "ESME_RINVDSTADR invalid destination address"),
            Map.entry(0x33, "ESME_RINVNUMDESTS invalid number of destinations"),
            Map.entry(0x43, "ESME_RINVESMCLASS invalid esm_class"),
            Map.entry(0x48, "ESME_RINVSRCTON invalid source address TON"),
            Map.entry(0x49, "ESME_RINVSRCNPI invalid source address NPI"),
            Map.entry(0x50, "ESME_RINVDSTTON invalid destination address TON"),
            Map.entry(0x51, "ESME_RINVDSTNPI invalid destination address NPI"),
            Map.entry(0x61, "ESME_RINVSCHED invalid scheduled delivery time"),
            Map.entry(0x62, "ESME_RINVEXPIRY invalid validity period"),
            Map.entry(0x104, "ESME_RINVDCS invalid data coding"));

    private static final Map<Integer, String> TRANSIENT = Map.ofEntries(
            Map.entry(0x04, "ESME_RINVBNDSTS not bound"),
            Map.entry(0x08, "ESME_RSYSERR system error"),
            Map.entry(0x45, "ESME_RSUBMITFAIL submit failed"),
            Map.entry(0x64, "ESME_RX_T_APPN temporary application error"),
            Map.entry(THROTTLED, "ESME_RTHROTTLED throttled"),
            Map.entry(MESSAGE_QUEUE_FULL, "ESME_RMSGQFUL message queue full"));

    private SmppStatuses() {}

    /** The status's name and meaning, or its number for one this table does not know. */
    static String describe(int status) {
        String known = PERMANENT.getOrDefault(status, TRANSIENT.get(status));
        return known != null ? known : "command status 0x" + String.format("%08X", status);
    }

    static SubmitOutcome outcome(int status) {
        if (status == THROTTLED || status == MESSAGE_QUEUE_FULL) {
            return new SubmitOutcome.Throttled(describe(status), null);
        }
        if (PERMANENT.containsKey(status)) {
            return new SubmitOutcome.Permanent("SMPP", status, describe(status));
        }
        return new SubmitOutcome.Transient("SMSC answered " + describe(status), null, true);
    }
}
