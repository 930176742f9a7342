package dev.sendlog.events;

import java.util.Locale;
import java.util.Optional;

/**
 * A message's priority (API.md, the submit field {@code priority}): {@code high} work has shards, a send stream and a
 * share of the send bound of its own (see {@link Lanes}), so it never waits behind a {@code normal} backlog.
 */
public enum Priority {
    NORMAL,
    HIGH;

    /** The API's spelling: {@code normal}, {@code high}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The priority the API spelling names, or empty for anything else (exactly {@code high} or {@code normal}). */
    public static Optional<Priority> fromWire(String value) {
        for (Priority p : values()) {
            if (p.wireName().equals(value)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }
}
