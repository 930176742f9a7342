package dev.sendlog.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.zip.DataFormatException;

/**
 * The one way payloads go to and from JSON. Writes every type at its current version; reads any
 * version it knows, upcasting old shapes step by step ({@link Upcasters}), and refuses loudly a
 * version newer than it knows.
 */
public final class EventCodec {
    private static final String PACKED = "packed";
    /** About 126,000 years either side of the epoch: microseconds within it, and their differences, fit a long. */
    private static final long MICROS_RANGE_SECONDS = 4_000_000_000_000L;

    private final ObjectMapper mapper;
    /** Readers for payloads already at their current version: one parse straight into the record. */
    private final Map<EventType, ObjectReader> currentReaders = new EnumMap<>(EventType.class);

    public EventCodec() {
        this.mapper = JsonMappers.pooled()
                .registerModule(new JavaTimeModule())
                .registerModule(UtcInstants.module())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
        for (EventType type : EventType.values()) {
            Class<? extends MessageEvent> payload = payloadClass(type);
            if (payload != null) {
                currentReaders.put(type, mapper.readerFor(payload));
            }
        }
    }

    /** The record a type's current payload reads into; null for COMPACTED, which has a shape of its own. */
    private static Class<? extends MessageEvent> payloadClass(EventType type) {
        return switch (type) {
            case COMPACTED -> null;
            case ACCEPTED -> Accepted.class;
            case PUBLISHED -> Published.class;
            case CLAIMED -> Claimed.class;
            case PROVIDER_ACCEPTED -> ProviderAccepted.class;
            case ATTEMPT_FAILED -> AttemptFailed.class;
            case REJECTED -> Rejected.class;
            case REDRIVEN -> Redriven.class;
            case DEAD -> Dead.class;
            case RECEIPT -> Receipt.class;
            case OUTCOME_UNKNOWN -> OutcomeUnknown.class;
            case RESOLVED -> Resolved.class;
            case EXPIRED -> Expired.class;
            case CANCELLED -> Cancelled.class;
            case SCHEDULED -> Scheduled.class;
        };
    }

    public EncodedEvent encode(MessageEvent event) {
        try {
            String json = event instanceof Compacted compacted ? pack(compacted) : mapper.writeValueAsString(event);
            return new EncodedEvent(event.type(), event.type().currentVersion(), json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode " + event.type(), e);
        }
    }

    public MessageEvent decode(UUID messageId, EventType type, int version, String json) {
        ObjectReader current = version == type.currentVersion() ? currentReaders.get(type) : null;
        if (current != null) {
            try {
                return current.readValue(json);
            } catch (JsonProcessingException | IllegalArgumentException e) {
                // Fall through to the tree, which says precisely what is wrong with it.
            }
        }
        JsonNode node;
        try {
            node = mapper.readTree(json);
        } catch (JsonProcessingException e) {
            throw new UnreadableEventException(
                    "event " + type + " v" + version + " of " + messageId + " is not JSON", e);
        }
        return fromNode(messageId, type, version, node);
    }

    /** The payload as a JSON tree at its current version, as the API shows it. */
    public JsonNode toNode(MessageEvent event) {
        if (event instanceof Compacted compacted) {
            ObjectNode node = mapper.createObjectNode();
            ArrayNode events = node.putArray("events");
            for (StoredEvent inner : compacted.events()) {
                ObjectNode item = events.addObject();
                item.put("seq", inner.seq());
                item.put("type", inner.type().name());
                item.put("version", inner.type().currentVersion());
                item.put("at", inner.at().toString());
                item.put("actor", inner.actor());
                item.set("data", toNode(inner.event()));
            }
            return node;
        }
        return mapper.valueToTree(event);
    }

    private MessageEvent fromNode(UUID messageId, EventType type, int version, JsonNode node) {
        if (version > type.currentVersion()) {
            throw new UnreadableEventException("event " + type + " of " + messageId + " has version " + version
                    + ", newer than the " + type.currentVersion() + " this build reads");
        }
        if (!(node instanceof ObjectNode object)) {
            throw new UnreadableEventException("event " + type + " of " + messageId + " is not a JSON object");
        }
        try {
            if (type == EventType.COMPACTED) {
                return version == 1 ? readCompacted(messageId, object) : unpack(messageId, object);
            }
            ObjectNode current =
                    version == type.currentVersion() ? object : Upcasters.upcast(type, version, object.deepCopy());
            return mapper.treeToValue(current, payloadClass(type));
        } catch (JsonProcessingException | IllegalArgumentException | ArithmeticException | DateTimeException e) {
            throw new UnreadableEventException(
                    "event " + type + " v" + version + " of " + messageId + " does not fit its shape: "
                            + e.getMessage(),
                    e);
        }
    }

    /**
     * COMPACTED v2: {@code {"packed": base64}}, the base64 of {@link SnapshotDeflate} over a JSON array with one
     * {@code [seq, type, version, at, actor, data]} per event. {@code at} is a number of microseconds after the
     * previous numeric time (the first: after the epoch), or, for a time finer than a microsecond or beyond the range of
     * a long in microseconds, its ISO text.
     * The v1 form spelled every event out as an object and was about nine times larger.
     */
    private String pack(Compacted compacted) throws JsonProcessingException {
        return mapper.writeValueAsString(
                mapper.createObjectNode().put(PACKED, Base64.getEncoder().encodeToString(packed(compacted))));
    }

    /**
     * A snapshot as the lean log's COMPACTED row holds it: the deflated bytes of the same JSON array as the v2 form,
     * without base64 and its JSON wrapper (a third smaller).
     */
    public byte[] packSnapshot(Compacted compacted) {
        try {
            return packed(compacted);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode a snapshot", e);
        }
    }

    /** The snapshot {@link #packSnapshot} wrote. */
    public Compacted unpackSnapshot(UUID messageId, byte[] packed) {
        if (packed == null) {
            throw new UnreadableEventException("COMPACTED of " + messageId + " has no snapshot");
        }
        try {
            return unpackArray(messageId, mapper.readTree(SnapshotDeflate.inflate(packed)));
        } catch (DataFormatException | IOException e) {
            throw new UnreadableEventException("COMPACTED of " + messageId + " does not unpack: " + e.getMessage(), e);
        }
    }

    private byte[] packed(Compacted compacted) throws JsonProcessingException {
        ArrayNode events = mapper.createArrayNode();
        long previous = 0;
        for (StoredEvent inner : compacted.events()) {
            ArrayNode item = events.addArray();
            item.add(inner.seq());
            item.add(inner.type().name());
            item.add(inner.type().currentVersion());
            if (inWholeMicros(inner.at())) {
                long micros = micros(inner.at());
                item.add(micros - previous);
                previous = micros;
            } else {
                item.add(inner.at().toString());
            }
            item.add(inner.actor());
            item.add(toNode(inner.event()));
        }
        return SnapshotDeflate.deflate(mapper.writeValueAsBytes(events));
    }

    private Compacted unpack(UUID messageId, ObjectNode node) {
        JsonNode packed = node.get(PACKED);
        if (packed == null || !packed.isTextual() || node.size() != 1) {
            throw new UnreadableEventException("COMPACTED v2 of " + messageId + " is not {\"" + PACKED + "\": text}");
        }
        JsonNode events;
        try {
            events = mapper.readTree(SnapshotDeflate.inflate(Base64.getDecoder().decode(packed.asText())));
        } catch (IllegalArgumentException | DataFormatException | IOException e) {
            throw new UnreadableEventException(
                    "COMPACTED v2 of " + messageId + " does not unpack: " + e.getMessage(), e);
        }
        return unpackArray(messageId, events);
    }

    private Compacted unpackArray(UUID messageId, JsonNode events) {
        if (events == null || !events.isArray() || events.isEmpty()) {
            throw new UnreadableEventException("COMPACTED v2 of " + messageId + " does not hold an array of events");
        }
        List<StoredEvent> inner = new ArrayList<>(events.size());
        long previous = 0;
        for (JsonNode item : events) {
            if (!item.isArray()
                    || item.size() != 6
                    || !isInt(item.get(0))
                    || !item.get(1).isTextual()
                    || !isInt(item.get(2))
                    || !item.get(4).isTextual()) {
                throw new UnreadableEventException(
                        "COMPACTED v2 of " + messageId + " holds a malformed event: " + item);
            }
            JsonNode at = item.get(3);
            Instant time;
            if (at.isIntegralNumber() && at.canConvertToLong()) {
                previous = Math.addExact(previous, at.asLong());
                time = Instant.EPOCH.plus(previous, ChronoUnit.MICROS);
            } else if (at.isTextual()) {
                time = parseInstant(messageId, at.asText());
            } else {
                throw new UnreadableEventException(
                        "COMPACTED v2 of " + messageId + " holds an event without a time: " + item);
            }
            EventType type = eventType(messageId, item.get(1).asText());
            MessageEvent event = fromNode(messageId, type, item.get(2).asInt(), item.get(5));
            inner.add(new StoredEvent(
                    messageId, item.get(0).asInt(), time, item.get(4).asText(), event));
        }
        return new Compacted(inner);
    }

    /** An integer JSON number in int's range; a fraction or text is not silently truncated or parsed. */
    private static boolean isInt(JsonNode node) {
        return node.isIntegralNumber() && node.canConvertToInt();
    }

    /** Whether the time is a whole number of microseconds near enough the epoch that differences of two fit a long. */
    private static boolean inWholeMicros(Instant at) {
        return at.getNano() % 1000 == 0 && Math.abs(at.getEpochSecond()) < MICROS_RANGE_SECONDS;
    }

    private static long micros(Instant at) {
        return at.getEpochSecond() * 1_000_000L + at.getNano() / 1000;
    }

    private static Instant parseInstant(UUID messageId, String text) {
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw new UnreadableEventException(
                    "COMPACTED of " + messageId + " holds a time that is not ISO-8601: " + text, e);
        }
    }

    private static EventType eventType(UUID messageId, String name) {
        try {
            return EventType.valueOf(name);
        } catch (IllegalArgumentException e) {
            throw new UnreadableEventException(
                    "COMPACTED of " + messageId + " holds an event of unknown type " + name, e);
        }
    }

    /** COMPACTED v1: {@code {"events": [{"seq", "type", "version", "at", "actor", "data"}, ...]}}. */
    private Compacted readCompacted(UUID messageId, ObjectNode node) {
        JsonNode events = node.get("events");
        if (events == null || !events.isArray()) {
            throw new UnreadableEventException("COMPACTED of " + messageId + " has no events array");
        }
        List<StoredEvent> inner = new ArrayList<>(events.size());
        for (JsonNode item : events) {
            EventType type = eventType(messageId, item.path("type").asText());
            int version = item.path("version").asInt();
            MessageEvent event = fromNode(messageId, type, version, item.path("data"));
            inner.add(new StoredEvent(
                    messageId,
                    item.path("seq").asInt(),
                    parseInstant(messageId, item.path("at").asText()),
                    item.path("actor").asText(),
                    event));
        }
        return new Compacted(inner);
    }
}
