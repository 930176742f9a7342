package dev.sendlog.service.db;

import java.util.UUID;

/** Identifies one appended event. */
public record AppendKey(UUID messageId, int seq) {}
