package dev.sendlog.service.log;

/**
 * An append found one of its seqs taken (a unique violation on the log's primary key: another writer won the race).
 * The transaction is lost with it; the caller learns which seqs are taken ({@link EventStore#taken}) and writes again
 * without them.
 */
public final class SeqTakenException extends RuntimeException {
    public SeqTakenException(Throwable cause) {
        super("an expected seq was taken by another writer", cause, false, false);
    }
}
