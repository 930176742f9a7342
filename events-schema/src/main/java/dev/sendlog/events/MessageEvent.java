package dev.sendlog.events;

/**
 * One fact about one message. Implementations are the payloads; the envelope (message id, seq, time,
 * actor) is {@link StoredEvent}. The interface is sealed so that every fold over it is a switch the
 * compiler checks for completeness.
 */
public sealed interface MessageEvent
        permits Accepted,
                Published,
                Claimed,
                ProviderAccepted,
                AttemptFailed,
                Rejected,
                Redriven,
                Dead,
                Receipt,
                OutcomeUnknown,
                Resolved,
                Compacted,
                Expired,
                Cancelled,
                Scheduled {

    EventType type();
}
