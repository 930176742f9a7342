package dev.sendlog.service.log;

import java.util.UUID;

/** Identifies one appended event. */
public record AppendKey(UUID messageId, int seq) {}
