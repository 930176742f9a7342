package dev.sendlog.events;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;

/**
 * Old payload shapes, turned into the current one a version at a time. Stored events are never
 * rewritten, so every shape ever written must stay readable here.
 */
final class Upcasters {
    private Upcasters() {}

    static ObjectNode upcast(EventType type, int version, ObjectNode node) {
        ObjectNode current = node;
        for (int v = version; v < type.currentVersion(); v++) {
            current = step(type, v, current);
        }
        return current;
    }

    private static ObjectNode step(EventType type, int fromVersion, ObjectNode node) {
        if (type == EventType.CLAIMED && fromVersion == 1) {
            // v1 (the first pre-release builds) stored the claim deadline as epoch milliseconds.
            long deadlineEpochMs = node.path("deadlineEpochMs").asLong();
            node.remove("deadlineEpochMs");
            node.put("deadline", Instant.ofEpochMilli(deadlineEpochMs).toString());
            return node;
        }
        throw new UnreadableEventException("no upcaster for " + type + " v" + fromVersion);
    }
}
