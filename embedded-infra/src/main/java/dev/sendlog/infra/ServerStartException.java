package dev.sendlog.infra;

/** A local server did not come up; the message carries the end of its log. */
public final class ServerStartException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ServerStartException(String message) {
        super(message);
    }

    public ServerStartException(String message, Throwable cause) {
        super(message, cause);
    }
}
