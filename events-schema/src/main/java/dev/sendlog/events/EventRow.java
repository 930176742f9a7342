package dev.sendlog.events;

import java.time.Instant;
import java.util.UUID;

/**
 * One typed row of message_events as written since the lean log (V8): the envelope and the few columns its type
 * uses (see V8__lean_log.sql for which type uses which). {@link RowCodec} turns it into an event and back. The
 * publication a claim (or a publish-timeout re-drive) names is row data, not part of the event's payload: the history
 * shows it as the PUBLISHED event before that row.
 */
public record EventRow(
        UUID messageId,
        int seq,
        EventType type,
        String actor,
        Instant at,
        Short attempt,
        Short code,
        Short kind,
        Long ref,
        Long publication,
        Instant time2,
        String gateway,
        String providerId,
        String detail,
        String detail2,
        byte[] packed) {}
