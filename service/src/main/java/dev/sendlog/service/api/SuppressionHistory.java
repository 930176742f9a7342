package dev.sendlog.service.api;

import java.util.List;

/** A recipient's suppression changes, newest first; {@code nextCursor} is null on the last page. */
public record SuppressionHistory(String recipient, List<SuppressionChangeView> items, String nextCursor) {}
