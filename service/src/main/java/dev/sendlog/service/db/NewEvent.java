package dev.sendlog.service.db;

import dev.sendlog.events.MessageEvent;
import java.time.Instant;
import java.util.UUID;

/** An event to append at {@code seq}, which must be the message's next seq for the append to win. */
public record NewEvent(UUID messageId, int seq, short shard, String actor, Instant at, MessageEvent event) {
}
