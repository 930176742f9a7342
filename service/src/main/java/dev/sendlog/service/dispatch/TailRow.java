package dev.sendlog.service.dispatch;

import java.time.Instant;
import java.util.UUID;

/**
 * One work event read from the tail of a shard: a new message (its row, seq 1, attempt 1) or a REDRIVEN event (the
 * attempt it owes), and when it was written.
 */
public record TailRow(short shard, UUID messageId, int seq, TailCursor cursor, int attempt, Instant at) {
}
