package dev.sendlog.log;

import java.time.Instant;

/** What a history shows of the publication a row names: the PUBLISHED event before that row. */
public record PublicationRef(long id, Instant publishedAt, Instant confirmBy, String actor, long epoch) {}
