package dev.sendlog.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The one way payloads go to and from JSON. Writes every type at its current version; reads any
 * version it knows, upcasting old shapes step by step ({@link Upcasters}), and refuses loudly a
 * version newer than it knows.
 */
public final class EventCodec {
    private final ObjectMapper mapper;

    public EventCodec() {
        this.mapper = new ObjectMapper()
                .registerModule(new JavaTimeModule())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
    }

    public EncodedEvent encode(MessageEvent event) {
        JsonNode node = toNode(event);
        try {
            return new EncodedEvent(event.type(), event.type().currentVersion(), mapper.writeValueAsString(node));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode " + event.type(), e);
        }
    }

    public MessageEvent decode(UUID messageId, EventType type, int version, String json) {
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
        ObjectNode current = Upcasters.upcast(type, version, object.deepCopy());
        try {
            return switch (type) {
                case COMPACTED -> readCompacted(messageId, current);
                case ACCEPTED -> mapper.treeToValue(current, Accepted.class);
                case PUBLISHED -> mapper.treeToValue(current, Published.class);
                case CLAIMED -> mapper.treeToValue(current, Claimed.class);
                case PROVIDER_ACCEPTED -> mapper.treeToValue(current, ProviderAccepted.class);
                case ATTEMPT_FAILED -> mapper.treeToValue(current, AttemptFailed.class);
                case REJECTED -> mapper.treeToValue(current, Rejected.class);
                case REDRIVEN -> mapper.treeToValue(current, Redriven.class);
                case DEAD -> mapper.treeToValue(current, Dead.class);
                case RECEIPT -> mapper.treeToValue(current, Receipt.class);
                case OUTCOME_UNKNOWN -> mapper.treeToValue(current, OutcomeUnknown.class);
                case RESOLVED -> mapper.treeToValue(current, Resolved.class);
            };
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
