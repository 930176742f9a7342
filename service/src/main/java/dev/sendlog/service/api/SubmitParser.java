package dev.sendlog.service.api;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.sendlog.service.core.MessageDraft;
import dev.sendlog.service.errors.ApiProblem;
import dev.sendlog.service.errors.FieldError;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns a submitted JSON body into {@link MessageDraft}s, naming every field problem at once
 * (API.md: to 1–64, body 1–1600, reference ≤ 128, metadata an object ≤ 4 KiB, gateway configured,
 * unknown fields refused). Strings must be storable verbatim: no NUL, no lone surrogate.
 */
public final class SubmitParser {
    public static final int MAX_TO = 64;
    public static final int MAX_BODY = 1600;
    public static final int MAX_REFERENCE = 128;
    public static final int MAX_IDEMPOTENCY_KEY = 128;
    public static final int MAX_METADATA_BYTES = 4096;
    public static final int MAX_BATCH = 1000;

    private static final Set<String> FIELDS = Set.of("to", "body", "reference", "gateway", "metadata");
    private static final Set<String> BATCH_ITEM_FIELDS = Set.of("to", "body", "reference", "gateway", "metadata", "idempotencyKey");

    private final Set<String> gateways;
    private final String defaultGateway;
    private static final MessageDigest SHA_256 = lookUpSha256();

    private final ObjectMapper canonical = new ObjectMapper().enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .disable(SerializationFeature.FLUSH_AFTER_WRITE_VALUE);

    private static MessageDigest lookUpSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-256", e);
        }
    }

    public SubmitParser(Set<String> gateways, String defaultGateway) {
        this.gateways = Set.copyOf(gateways);
        this.defaultGateway = defaultGateway;
    }

    public MessageDraft single(JsonNode body, String idempotencyKeyHeader) {
        List<FieldError> errors = new ArrayList<>();
        if (idempotencyKeyHeader != null) {
            checkIdempotencyKey(idempotencyKeyHeader, "Idempotency-Key", errors);
        }
        MessageDraft draft = item(body, "", FIELDS, idempotencyKeyHeader, errors);
        if (!errors.isEmpty()) {
            throw ApiProblem.badRequest("the message is invalid", errors);
        }
        return draft;
    }

    public List<MessageDraft> batch(JsonNode body) {
        List<FieldError> errors = new ArrayList<>();
        if (body == null || !body.isObject()) {
            throw ApiProblem.badRequest("the body must be a JSON object {\"messages\": [...]}", List.of());
        }
        body.fieldNames().forEachRemaining(name -> {
            if (!name.equals("messages")) {
                errors.add(new FieldError(name, "unknown field"));
            }
        });
        JsonNode messages = body.get("messages");
        if (messages == null || !messages.isArray()) {
            errors.add(new FieldError("messages", "required: an array of 1 to " + MAX_BATCH + " messages"));
            throw ApiProblem.badRequest("the batch is invalid", errors);
        }
        if (messages.isEmpty() || messages.size() > MAX_BATCH) {
            errors.add(new FieldError("messages", "must hold 1 to " + MAX_BATCH + " messages, has " + messages.size()));
            throw ApiProblem.badRequest("the batch is invalid", errors);
        }
        List<MessageDraft> drafts = new ArrayList<>(messages.size());
        Set<String> keysSeen = new java.util.HashSet<>();
        for (int i = 0; i < messages.size(); i++) {
            String path = "messages[" + i + "].";
            JsonNode item = messages.get(i);
            JsonNode key = item != null && item.isObject() ? item.get("idempotencyKey") : null;
            String keyText = null;
            if (key != null && !key.isNull()) {
                if (!key.isTextual()) {
                    errors.add(new FieldError(path + "idempotencyKey", "must be a string"));
                } else {
                    keyText = key.asText();
                    checkIdempotencyKey(keyText, path + "idempotencyKey", errors);
                    if (!keysSeen.add(keyText)) {
                        errors.add(new FieldError(path + "idempotencyKey", "repeats a key used earlier in this batch"));
                    }
                }
            }
            drafts.add(item(item, path, BATCH_ITEM_FIELDS, keyText, errors));
        }
        if (!errors.isEmpty()) {
            throw ApiProblem.badRequest("the batch is invalid; nothing was accepted", errors);
        }
        return drafts;
    }

    private MessageDraft item(JsonNode node, String path, Set<String> allowed, String idempotencyKey, List<FieldError> errors) {
        if (node == null || !node.isObject()) {
            errors.add(new FieldError(path.isEmpty() ? "(body)" : path.substring(0, path.length() - 1), "must be a JSON object"));
            return null;
        }
        Iterator<String> names = node.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!allowed.contains(name)) {
                errors.add(new FieldError(path + name, "unknown field"));
            }
        }
        String to = text(node, "to", path, 1, MAX_TO, true, errors);
        String body = text(node, "body", path, 1, MAX_BODY, true, errors);
        String reference = text(node, "reference", path, 0, MAX_REFERENCE, false, errors);
        String gateway = text(node, "gateway", path, 1, 64, false, errors);
        if (gateway == null) {
            gateway = defaultGateway;
        } else if (!gateways.contains(gateway)) {
            errors.add(new FieldError(path + "gateway", "unknown gateway; configured: " + gateways));
        }
        String metadataJson = metadata(node.get("metadata"), path + "metadata", errors);
        if (!errors.isEmpty()) {
            return null;
        }
        return new MessageDraft(to, body, reference, gateway, metadataJson, idempotencyKey,
                hash(to, body, reference, node.get("gateway"), node.get("metadata")));
    }

    private static String text(JsonNode node, String field, String path, int min, int max, boolean required,
                               List<FieldError> errors) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            if (required) {
                errors.add(new FieldError(path + field, "required"));
            }
            return null;
        }
        if (!value.isTextual()) {
            errors.add(new FieldError(path + field, "must be a string"));
            return null;
        }
        String text = value.textValue();
        int length = text.codePointCount(0, text.length());
        if (length < min || length > max) {
            errors.add(new FieldError(path + field, "must be " + min + " to " + max + " characters, is " + length));
            return null;
        }
        String unstorable = unstorable(text);
        if (unstorable != null) {
            errors.add(new FieldError(path + field, unstorable));
            return null;
        }
        return text;
    }

    private String metadata(JsonNode value, String path, List<FieldError> errors) {
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isObject()) {
            errors.add(new FieldError(path, "must be a JSON object"));
            return null;
        }
        String problem = unstorableTree(value);
        if (problem != null) {
            errors.add(new FieldError(path, problem));
            return null;
        }
        String json = value.toString();
        int bytes = json.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_METADATA_BYTES) {
            errors.add(new FieldError(path, "must be at most " + MAX_METADATA_BYTES + " bytes of JSON, is " + bytes));
            return null;
        }
        return json;
    }

    private static String unstorableTree(JsonNode node) {
        if (node.isTextual()) {
            return unstorable(node.textValue());
        }
        if (node.isObject()) {
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                String problem = unstorable(field.getKey());
                if (problem == null) {
                    problem = unstorableTree(field.getValue());
                }
                if (problem != null) {
                    return problem;
                }
            }
        }
        if (node.isArray()) {
            for (JsonNode item : node) {
                String problem = unstorableTree(item);
                if (problem != null) {
                    return problem;
                }
            }
        }
        return null;
    }

    /** Why PostgreSQL could not store (or compare) the text verbatim, or null when it can. */
    public static String unstorable(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == 0) {
                return "must not contain the NUL character";
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(i + 1))) {
                    return "contains an unpaired surrogate (not valid Unicode)";
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return "contains an unpaired surrogate (not valid Unicode)";
            }
        }
        return null;
    }

    private static void checkIdempotencyKey(String key, String field, List<FieldError> errors) {
        if (key.isEmpty() || key.length() > MAX_IDEMPOTENCY_KEY) {
            errors.add(new FieldError(field, "must be 1 to " + MAX_IDEMPOTENCY_KEY + " characters"));
        } else if (unstorable(key) != null) {
            errors.add(new FieldError(field, unstorable(key)));
        }
    }

    /**
     * SHA-256 of the request's content as canonical JSON, keys sorted at every level:
     * {@code {"body":..,"gateway":..,"metadata":..,"reference":..,"to":..}}, absent fields as null. Stored with the
     * idempotency key and compared on every replay, so these bytes must not change between versions
     * ({@code RequestHashTest} holds vectors of the first version). Written field by field into the digest, with
     * only the metadata going through a sorted map; a digest cloned from one looked up once.
     */
    private byte[] hash(String to, String body, String reference, JsonNode gateway, JsonNode metadata) {
        MessageDigest digest = sha256();
        OutputStream digesting = new DigestOutputStream(OutputStream.nullOutputStream(), digest);
        try (JsonGenerator out = canonical.getFactory().createGenerator(digesting)) {
            out.writeStartObject();
            out.writeStringField("body", body);
            writeTextOrNull(out, "gateway", gateway == null ? null : gateway.asText());
            out.writeFieldName("metadata");
            if (metadata == null || metadata.isNull()) {
                out.writeNull();
            } else {
                canonical.writeValue(out, canonical.convertValue(metadata, Map.class));
            }
            writeTextOrNull(out, "reference", reference);
            out.writeStringField("to", to);
            out.writeEndObject();
        } catch (IOException e) {
            throw new IllegalStateException("cannot hash a request", e);
        }
        return digest.digest();
    }

    private static void writeTextOrNull(JsonGenerator out, String field, String text) throws IOException {
        if (text == null) {
            out.writeNullField(field);
        } else {
            out.writeStringField(field, text);
        }
    }

    private static MessageDigest sha256() {
        try {
            return (MessageDigest) SHA_256.clone();
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException("the SHA-256 digest cannot be cloned", e);
        }
    }
}
