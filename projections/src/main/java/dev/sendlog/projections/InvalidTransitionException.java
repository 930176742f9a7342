package dev.sendlog.projections;

import dev.sendlog.events.EventType;
import java.util.UUID;

/**
 * An event that cannot follow the state it was appended to. The deciders never append one, so this is
 * a bug or a corrupted log: it is thrown, never skipped.
 */
public final class InvalidTransitionException extends RuntimeException {
    private final UUID messageId;
    private final int seq;

    public InvalidTransitionException(UUID messageId, int seq, Phase phase, EventType type, String why) {
        super("message " + messageId + " seq " + seq + ": " + type + " cannot follow " + phase + " (" + why + ")");
        this.messageId = messageId;
        this.seq = seq;
    }

    public UUID messageId() {
        return messageId;
    }

    public int seq() {
        return seq;
    }
}
