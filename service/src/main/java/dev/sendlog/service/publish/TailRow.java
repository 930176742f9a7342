package dev.sendlog.service.publish;

import java.time.Instant;
import java.util.UUID;

/**
 * One work event read from the tail of a shard: a new message (its row, seq 1, attempt 1) or a REDRIVEN event (the
 * attempt it owes), and when it was written. {@code scheduled}: a new message waiting for its sendAt (issue 26); the
 * feed moves its position past it and publishes nothing for it: the due scan appends its work (a REDRIVEN) when due.
 */
public record TailRow(
        short shard, UUID messageId, int seq, TailCursor cursor, int attempt, Instant at, boolean scheduled) {
    public TailRow(short shard, UUID messageId, int seq, TailCursor cursor, int attempt, Instant at) {
        this(shard, messageId, seq, cursor, attempt, at, false);
    }
}
