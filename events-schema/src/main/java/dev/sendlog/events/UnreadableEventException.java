package dev.sendlog.events;

/** A stored payload that this code cannot read: corrupt, or written by a newer version of sendlog. */
public final class UnreadableEventException extends RuntimeException {
    public UnreadableEventException(String message, Throwable cause) {
        super(message, cause);
    }

    public UnreadableEventException(String message) {
        super(message);
    }
}
