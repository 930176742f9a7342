package dev.sendlog.service.timers;

import java.util.UUID;

/**
 * Where the timers hand the messages due for a status query (issue 32): the reconciler, which lives above the timers
 * (it appends through them) and so is known here only by what the timers ask of it. Offers are not durable: one not
 * taken is offered again at the message's next point.
 */
public interface StatusQueries {
    /** Whether this gateway's messages are asked about (its {@code statusQuery: true}). */
    boolean asks(String gateway);

    /**
     * Asks about a message soon. {@code last}: the reconciliation window has ended, so an answer without a final makes
     * the message UNKNOWN. False when it is not taken now: its next point asks.
     */
    boolean offer(UUID messageId, String gateway, boolean last);

    /** Asks soon whether the provider took the last attempt of a message whose claim expired at the attempt limit. */
    boolean offerLostClaim(UUID messageId, String gateway, int attempt);
}
