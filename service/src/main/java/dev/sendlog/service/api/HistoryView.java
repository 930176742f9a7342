package dev.sendlog.service.api;

import java.util.List;
import java.util.UUID;

/** The whole history of a message, in order. */
public record HistoryView(UUID id, List<EventView> events) {
}
