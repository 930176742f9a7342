package dev.sendlog.events;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The provider answered the submit of {@code attempt} with its own id. Written in the same
 * transaction as the ledger charge. Provider ids are unique only per gateway and only for a while.
 *
 * <p>A message sent as concatenated parts (SMPP with a UDH, issue 28) has one such event per part, written together
 * in one append: {@code part} of {@code parts}, each with the id the SMSC gave that part, so that each part's receipt
 * finds the message. A single message is part 1 of 1, and leaves both out of its JSON (payloads and snapshots of
 * single messages stay as they were).
 */
public record ProviderAccepted(
        int attempt,
        String gateway,
        String providerId,

        @JsonInclude(value = JsonInclude.Include.CUSTOM, valueFilter = OmitOne.class)
        int part,

        @JsonInclude(value = JsonInclude.Include.CUSTOM, valueFilter = OmitOne.class)
        int parts)
        implements MessageEvent {
    public ProviderAccepted {
        Require.positive(attempt, "attempt");
        Require.text(gateway, "gateway");
        Require.text(providerId, "providerId");
        // Absent in JSON written before parts existed: a single message.
        part = part == 0 ? 1 : part;
        parts = parts == 0 ? 1 : parts;
        if (part < 1 || part > parts || parts > 255) {
            throw new IllegalArgumentException("part " + part + " of " + parts + " is not a part of a message");
        }
    }

    /** Read from JSON: a payload or snapshot written before parts existed has neither field, and is part 1 of 1. */
    @com.fasterxml.jackson.annotation.JsonCreator
    static ProviderAccepted fromJson(
            @com.fasterxml.jackson.annotation.JsonProperty("attempt") int attempt,
            @com.fasterxml.jackson.annotation.JsonProperty("gateway") String gateway,
            @com.fasterxml.jackson.annotation.JsonProperty("providerId") String providerId,
            @com.fasterxml.jackson.annotation.JsonProperty("part") Integer part,
            @com.fasterxml.jackson.annotation.JsonProperty("parts") Integer parts) {
        return new ProviderAccepted(attempt, gateway, providerId, part == null ? 1 : part, parts == null ? 1 : parts);
    }

    /** A message sent whole: part 1 of 1. */
    public ProviderAccepted(int attempt, String gateway, String providerId) {
        this(attempt, gateway, providerId, 1, 1);
    }

    /** A Jackson value filter that leaves a part number of 1 out of the JSON. */
    public static final class OmitOne {
        @Override
        public boolean equals(Object value) {
            return value == null || Integer.valueOf(1).equals(value);
        }

        @Override
        public int hashCode() {
            return 1;
        }
    }

    @Override
    public EventType type() {
        return EventType.PROVIDER_ACCEPTED;
    }
}
