package dev.sendlog.simulator.smpp;

/**
 * The SMSC simulator's counters since start or the last {@code clear()}. A submit_sm counts in {@code submits}
 * once it reaches the simulator on a bound session; then exactly one of throttled, invalid, queueFull and accepted
 * counts it: {@code submits = throttled + invalid + queueFull + accepted}.
 *
 * @param submits          submit_sm received on bound sessions
 * @param accepted         submits recorded and given a message_id (also those whose response was lost)
 * @param throttled        submits answered {@code ESME_RTHROTTLED} (above {@code maxPerSecond})
 * @param queueFull        submits answered {@code ESME_RMSGQFUL} ({@code queueFullEvery})
 * @param invalid          submits whose body did not decode, answered {@code ESME_RINVMSGLEN} or {@code ESME_RINVDCS}
 * @param responsesLost    accepted submits whose submit_sm_resp was never sent ({@code loseResponseRate})
 * @param receiptsSent     deliver_sm receipts written to a session, retries included
 * @param receiptsAcked    receipts answered with deliver_sm_resp ESME_ROK (each receipt at most once)
 * @param receiptsRefused  receipt attempts answered with another command_status
 * @param receiptsPending  receipts decided but not yet acknowledged (waiting for their delay, a session, or a retry)
 * @param bindsAccepted    binds answered with ESME_ROK
 * @param bindsRefused     binds refused (wrong system_id or password, or {@code refuseBinds})
 * @param sessionsBound    sessions bound now (not reset by clear)
 * @param enquireLinks     enquire_link requests received, answered or not
 */
public record SmscStats(
        long submits,
        long accepted,
        long throttled,
        long queueFull,
        long invalid,
        long responsesLost,
        long receiptsSent,
        long receiptsAcked,
        long receiptsRefused,
        long receiptsPending,
        long bindsAccepted,
        long bindsRefused,
        int sessionsBound,
        long enquireLinks) {}
