package dev.sendlog.service.log;

import java.time.Instant;

/**
 * Brings a publication's next check forward to {@code at} (written with the event that set the earlier deadline: a
 * retry sooner than the publication's confirm deadline, or a claim deadline before it).
 */
public record PublicationWake(long publication, Instant at) {}
