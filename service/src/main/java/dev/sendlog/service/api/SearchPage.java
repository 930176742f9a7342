package dev.sendlog.service.api;

import java.util.List;

/** One page of search results; {@code nextCursor} is null on the last page. */
public record SearchPage(List<MessageView> items, String nextCursor) {}
