package dev.sendlog.service.core;

import java.time.Instant;
import java.util.UUID;

/**
 * A search, newest first. Null fields do not filter. {@code tenant} null means every tenant (support
 * and admin only). {@code before} is the keyset cursor: the id of the last item of the previous page.
 */
public record SearchQuery(String tenant, String recipient, String reference, Instant since, Instant until, int limit,
                          UUID before) {
}
