package dev.sendlog.events;

import java.util.List;

/**
 * A snapshot written by compaction: the whole folded history of the message, event by event, so
 * nothing visible is lost when the partition that held the originals is dropped.
 */
public record Compacted(List<StoredEvent> events) implements MessageEvent {
    public Compacted {
        if (events == null || events.isEmpty()) {
            throw new IllegalArgumentException("a snapshot holds at least one event");
        }
        events = List.copyOf(events);
    }

    @Override
    public EventType type() {
        return EventType.COMPACTED;
    }
}
