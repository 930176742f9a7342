package dev.sendlog.service.dispatch;

import java.time.Instant;
import java.util.UUID;

/** One event read from the tail of a shard. */
public record TailRow(short shard, UUID messageId, int seq, TailCursor cursor, String type, int version, String data,
                      Instant at, String actor) {
}
