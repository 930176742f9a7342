package dev.sendlog.service.log;

import dev.sendlog.projections.MessageStatus;
import java.time.Instant;
import java.util.UUID;

/**
 * A search, newest first. Null fields do not filter. A status filter reads the status projection (which can lag
 * the log by up to a projector round); every other filter reads the message rows. {@code tenant} null means every tenant (support
 * and admin only). {@code before} is the keyset cursor: the id of the last item of the previous page.
 */
public record SearchQuery(
        String tenant,
        String recipient,
        String reference,
        MessageStatus status,
        Instant since,
        Instant until,
        int limit,
        UUID before) {}
