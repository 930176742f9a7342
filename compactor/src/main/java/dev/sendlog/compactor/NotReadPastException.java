package dev.sendlog.compactor;

/** A partition still holds events a poller or the projector has not read: compacting it now could hide them. */
public final class NotReadPastException extends RuntimeException {
    public NotReadPastException(String message) {
        super(message);
    }
}
