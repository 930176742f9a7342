package dev.sendlog.service.accept;

import java.time.Instant;
import java.util.UUID;

/** One accepted message as the client learns of it. {@code replayed}: an earlier request with the same key made it. */
public record AcceptedItem(UUID id, Instant acceptedAt, boolean replayed) {}
