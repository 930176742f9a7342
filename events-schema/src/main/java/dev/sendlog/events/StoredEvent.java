package dev.sendlog.events;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/** The envelope of one event: which message, its place in that message's history, when and by whom. */
public record StoredEvent(UUID messageId, int seq, Instant at, String actor, MessageEvent event) {
    public StoredEvent {
        Objects.requireNonNull(messageId, "messageId");
        Require.positive(seq, "seq");
        Require.present(at, "at");
        Require.text(actor, "actor");
        Require.present(event, "event");
    }

    public EventType type() {
        return event.type();
    }
}
