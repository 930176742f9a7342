package dev.sendlog.log;

import dev.sendlog.events.EventRow;
import java.time.Instant;
import java.util.UUID;

/**
 * One row of message_events as read back: a typed row (since V8), or a row written before V8 whose payload is the
 * JSON the codec upcasts. {@code publication} is the publication the row names, when it names one that exists.
 */
public record LoggedRow(
        UUID messageId,
        int seq,
        Instant at,
        EventRow typed,
        String legacyType,
        int legacyVersion,
        String legacyActor,
        String legacyData,
        PublicationRef publication) {

    public boolean isLegacy() {
        return typed == null;
    }
}
