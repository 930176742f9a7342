package dev.sendlog.service.api;

import java.util.List;

/** One page of a tenant's suppression list, in recipient order; {@code nextCursor} is null on the last page. */
public record SuppressionPage(List<SuppressionView> items, String nextCursor) {}
