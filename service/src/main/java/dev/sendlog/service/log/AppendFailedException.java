package dev.sendlog.service.log;

/** Nothing of an append was written (the database failed); the caller may try again. */
public final class AppendFailedException extends RuntimeException {
    public AppendFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
