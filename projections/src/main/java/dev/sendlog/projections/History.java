package dev.sendlog.projections;

import dev.sendlog.events.Compacted;
import dev.sendlog.events.StoredEvent;
import java.util.ArrayList;
import java.util.List;

/** A message's history as support reads it: compaction snapshots are opened back into the events they hold. */
public final class History {
    private History() {}

    /** The events in seq order, every COMPACTED snapshot replaced by the events it folded. */
    public static List<StoredEvent> expand(List<StoredEvent> stored) {
        List<StoredEvent> events = new ArrayList<>(stored.size());
        for (StoredEvent e : stored) {
            if (e.event() instanceof Compacted compacted) {
                events.addAll(expand(compacted.events()));
            } else {
                events.add(e);
            }
        }
        return events;
    }
}
