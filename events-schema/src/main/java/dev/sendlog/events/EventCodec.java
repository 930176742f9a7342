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
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The one way payloads go to and from JSON. Writes every type at its current version; reads any
 * version it knows, upcasting old shapes step by step ({@link Upcasters}), and refuses loudly a
 * version newer than it knows.
 */
public final class EventCodec {
    private final ObjectMapper mapper;
    /** Readers for payloads already at their current version: one parse straight into the record. */
    private final Map<EventType, ObjectReader> currentReaders = new EnumMap<>(EventType.class);

    public EventCodec() {
        this.mapper = JsonMappers.pooled()
                .registerModule(new JavaTimeModule())
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
        };
    }

    public EncodedEvent encode(MessageEvent event) {
        try {
            // Straight to text: the tree is only needed for the snapshot's nested events.
            String json = event instanceof Compacted ? mapper.writeValueAsString(toNode(event)) : mapper.writeValueAsString(event);
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
            throw new UnreadableEventException("event " + type + " v" + version + " of " + messageId + " is not JSON", e);
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
        ObjectNode current = version == type.currentVersion() ? object : Upcasters.upcast(type, version, object.deepCopy());
        try {
            return type == EventType.COMPACTED ? readCompacted(messageId, current) : mapper.treeToValue(current, payloadClass(type));
        } catch (JsonProcessingException | IllegalArgumentException e) {
            throw new UnreadableEventException("event " + type + " v" + version + " of " + messageId
                    + " does not fit its shape: " + e.getMessage(), e);
        }
    }

    private Compacted readCompacted(UUID messageId, ObjectNode node) {
        JsonNode events = node.get("events");
        if (events == null || !events.isArray()) {
            throw new UnreadableEventException("COMPACTED of " + messageId + " has no events array");
        }
        List<StoredEvent> inner = new ArrayList<>(events.size());
        for (JsonNode item : events) {
            EventType type = EventType.valueOf(item.path("type").asText());
            int version = item.path("version").asInt();
            MessageEvent event = fromNode(messageId, type, version, item.path("data"));
            inner.add(new StoredEvent(messageId, item.path("seq").asInt(),
                    Instant.parse(item.path("at").asText()), item.path("actor").asText(), event));
        }
        return new Compacted(inner);
    }
}
