package dev.sendlog.service.api;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.sendlog.events.JsonMappers;
import dev.sendlog.events.Priority;
import dev.sendlog.service.accept.MessageDraft;
import dev.sendlog.service.accept.SenderIds;
import dev.sendlog.service.errors.ApiProblem;
import dev.sendlog.service.errors.FieldError;
import dev.sendlog.service.log.StorableText;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Turns a submitted JSON body into {@link MessageDraft}s, naming every field problem at once
 * (API.md: to 1–64, body 1–1600, reference ≤ 128, metadata an object ≤ 4 KiB, gateway configured, priority
 * {@code high} or {@code normal}, unknown fields refused, {@code to} matching the recipient pattern). Strings must be
 * storable verbatim: no NUL, no lone surrogate. Read bodies with {@link #read}: it refuses bytes after the JSON value
 * and keeps every number exactly.
 *
 * <p>Numbers in {@code metadata} are kept at their exact decimal value in the form PostgreSQL's {@code jsonb} stores
 * and returns: plain notation, the exponent applied, the digits after the point as sent ({@code 1E+2} is stored as
 * {@code 100}, {@code 1.50} as {@code 1.50}, {@code 1e400} as a 1 and 400 zeros, {@code -0.0} as {@code 0.0}). That
 * form is also what the request hash sees, so two requests are the same request exactly when they store the same
 * metadata. A number whose exact form would not fit in the 4 KiB of metadata is refused, never rounded.
 */
public final class SubmitParser {
    public static final int MAX_TO = 64;
    public static final int MAX_BODY = 1600;
    public static final int MAX_REFERENCE = 128;
    public static final int MAX_IDEMPOTENCY_KEY = 128;
    public static final int MAX_METADATA_BYTES = 4096;
    public static final int MAX_BATCH = 1000;

    /** The longest validity a message may ask for, as {@code ttlSeconds} or as a {@code validUntil} ahead of now (72 h). */
    public static final long MAX_TTL_SECONDS = 259_200;
    /** How far ahead a message may be scheduled, as {@code sendAt} (30 days, API.md). */
    public static final long MAX_SEND_AT_SECONDS = 30L * 24 * 3600;

    private static final Set<String> FIELDS = Set.of(
            "to", "body", "reference", "gateway", "from", "validUntil", "ttlSeconds", "sendAt", "metadata", "priority");
    private static final Set<String> BATCH_ITEM_FIELDS = Set.of(
            "to",
            "body",
            "reference",
            "gateway",
            "from",
            "validUntil",
            "ttlSeconds",
            "sendAt",
            "metadata",
            "priority",
            "idempotencyKey");

    /**
     * Reads request bodies: a duplicated key or anything after the JSON value is an error, and every number that is
     * not an integer is read as its exact decimal (never a double, which rounds and overflows to Infinity).
     */
    private static final ObjectReader READER = JsonMapper.builder(JsonMappers.pooledFactory())
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
            .build()
            .readerFor(JsonNode.class);

    private final Set<String> gateways;
    private final Pattern recipient;
    private final InstantSource clock;
    private static final MessageDigest SHA_256 = lookUpSha256();

    private final ObjectMapper canonical = JsonMappers.pooled()
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .disable(SerializationFeature.FLUSH_AFTER_WRITE_VALUE);

    private static MessageDigest lookUpSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-256", e);
        }
    }

    /** @param recipientPattern what {@code to} must match (pipeline.checks.recipientPattern; E.164 by default) */
    public SubmitParser(Set<String> gateways, String recipientPattern) {
        this(gateways, recipientPattern, InstantSource.system());
    }

    /** @param clock what "in the past" and {@code ttlSeconds} are measured from */
    public SubmitParser(Set<String> gateways, String recipientPattern, InstantSource clock) {
        this.clock = clock;
        this.gateways = Set.copyOf(gateways);
        this.recipient = Pattern.compile(recipientPattern);
    }

    /**
     * The body as a JSON tree for {@link #single} or {@link #batch}; a body that is not one JSON value (bytes after it
     * included) throws, and the mappers answer it 400. Both submit paths read through here, so they refuse the same.
     */
    public static JsonNode read(byte[] body) throws JsonProcessingException {
        try {
            return READER.readValue(body);
        } catch (JsonProcessingException e) {
            throw e;
        } catch (IOException e) {
            throw new IllegalStateException("reading a byte array failed", e);
        }
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

    private MessageDraft item(
            JsonNode node, String path, Set<String> allowed, String idempotencyKey, List<FieldError> errors) {
        if (node == null || !node.isObject()) {
            errors.add(new FieldError(
                    path.isEmpty() ? "(body)" : path.substring(0, path.length() - 1), "must be a JSON object"));
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
        if (to != null && !recipient.matcher(to).matches()) {
            errors.add(new FieldError(
                    path + "to",
                    "is not a valid recipient: must match " + recipient.pattern()
                            + " (E.164 by default: + and 7 to 15 digits)"));
        }
        String body = text(node, "body", path, 1, MAX_BODY, true, errors);
        String reference = text(node, "reference", path, 0, MAX_REFERENCE, false, errors);
        // Left null when the message names none: its tenant's routes choose it (Routes, after the parser).
        String gateway = text(node, "gateway", path, 1, 64, false, errors);
        if (gateway != null && !gateways.contains(gateway)) {
            errors.add(new FieldError(path + "gateway", "unknown gateway; configured: " + gateways));
        }
        String from = text(node, "from", path, 1, SenderIds.MAX_LENGTH, false, errors);
        if (from != null && !SenderIds.isValid(from)) {
            errors.add(new FieldError(path + "from", SenderIds.RULE));
        }
        Instant validUntil = validity(node, path, errors);
        Instant sendAt = sendAt(node, path, errors);
        Priority priority = priority(node, path, errors);
        String metadataJson = metadata(node.get("metadata"), path + "metadata", errors);
        if (!errors.isEmpty()) {
            return null;
        }
        JsonNode sentGateway = node.get("gateway");
        return new MessageDraft(
                to,
                body,
                reference,
                gateway,
                from,
                metadataJson,
                idempotencyKey,
                // Only a keyed request is ever compared with an earlier one: without a key, no hash (a SHA-256 of the
                // canonical request on every submit was 7% of the single-submit path's CPU in scripts/bench at C=16).
                idempotencyKey == null
                        ? null
                        : hash(
                                to,
                                body,
                                reference,
                                sentGateway == null || sentGateway.isNull() ? null : sentGateway.textValue(),
                                from,
                                present(node.get("validUntil")),
                                present(node.get("ttlSeconds")),
                                present(node.get("sendAt")),
                                priority,
                                metadataJson == null ? null : node.get("metadata")),
                validUntil,
                sendAt,
                priority);
    }

    /**
     * The validity a message asks for: {@code validUntil}, an RFC 3339 instant with its offset ({@code Z} or
     * {@code +hh:mm}), after now and at most {@link #MAX_TTL_SECONDS} ahead; or {@code ttlSeconds}, an integer of 1 to
     * {@link #MAX_TTL_SECONDS}, counted from now. Not both: a request naming two deadlines is ambiguous. Null when neither.
     */
    private Instant validity(JsonNode node, String path, List<FieldError> errors) {
        JsonNode until = present(node.get("validUntil"));
        JsonNode ttl = present(node.get("ttlSeconds"));
        if (until != null && ttl != null) {
            errors.add(new FieldError(path + "ttlSeconds", "give validUntil or ttlSeconds, not both"));
            return null;
        }
        Instant now = clock.instant();
        if (ttl != null) {
            if (!ttl.isIntegralNumber()
                    || !ttl.canConvertToLong()
                    || ttl.longValue() < 1
                    || ttl.longValue() > MAX_TTL_SECONDS) {
                errors.add(new FieldError(
                        path + "ttlSeconds", "must be a whole number of seconds from 1 to " + MAX_TTL_SECONDS));
                return null;
            }
            return now.plusSeconds(ttl.longValue());
        }
        if (until == null) {
            return null;
        }
        Instant at = instant(until, path + "validUntil", errors);
        if (at == null) {
            return null;
        }
        if (!at.isAfter(now)) {
            errors.add(new FieldError(path + "validUntil", "is not in the future (now " + now + ")"));
            return null;
        }
        if (at.isAfter(now.plusSeconds(MAX_TTL_SECONDS))) {
            errors.add(new FieldError(
                    path + "validUntil", "is more than " + MAX_TTL_SECONDS + " seconds (72 hours) ahead"));
            return null;
        }
        return at;
    }

    /** An RFC 3339 instant with its offset, or null with the field's error added. */
    private static Instant instant(JsonNode value, String field, List<FieldError> errors) {
        if (!value.isTextual()) {
            errors.add(new FieldError(field, "must be an RFC 3339 instant as a string, e.g. 2030-01-31T12:00:00Z"));
            return null;
        }
        try {
            return OffsetDateTime.parse(value.textValue(), DateTimeFormatter.ISO_OFFSET_DATE_TIME)
                    .toInstant();
        } catch (DateTimeException e) {
            errors.add(new FieldError(
                    field,
                    "is not an RFC 3339 instant with an offset (e.g."
                            + " 2030-01-31T12:00:00Z or 2030-01-31T13:00:00+01:00)"));
            return null;
        }
    }

    /**
     * When a message asks to be sent ({@code sendAt}, issue 26): an RFC 3339 instant with its offset, at most
     * {@link #MAX_SEND_AT_SECONDS} (30 days) ahead. One in the past is accepted and means now (API.md: "in the past:
     * now"): a client's clock a little behind ours must not turn a send into a 400. Kept at microseconds, what the row
     * stores, so whether it is after the acceptance reads the same in Java and in the database. Null when absent.
     */
    private Instant sendAt(JsonNode node, String path, List<FieldError> errors) {
        JsonNode value = present(node.get("sendAt"));
        if (value == null) {
            return null;
        }
        Instant at = instant(value, path + "sendAt", errors);
        if (at == null) {
            return null;
        }
        if (at.isAfter(clock.instant().plusSeconds(MAX_SEND_AT_SECONDS))) {
            errors.add(new FieldError(path + "sendAt", "is more than 30 days ahead"));
            return null;
        }
        return at.truncatedTo(java.time.temporal.ChronoUnit.MICROS);
    }

    /**
     * The lane a message asks for ({@code priority}, issue 26): exactly {@code high} or {@code normal}, no other spelling
     * or type (a client that sends {@code "HIGH"} learns of it at once rather than being sent at normal priority). Absent
     * or null means {@code normal}, like every optional field. Null with the field's error added otherwise.
     */
    private static Priority priority(JsonNode node, String path, List<FieldError> errors) {
        JsonNode value = present(node.get("priority"));
        if (value == null) {
            return Priority.NORMAL;
        }
        Optional<Priority> named = value.isTextual() ? Priority.fromWire(value.textValue()) : Optional.empty();
        if (named.isEmpty()) {
            errors.add(new FieldError(path + "priority", "must be \"high\" or \"normal\" (absent: normal)"));
            return null;
        }
        return named.get();
    }

    private static JsonNode present(JsonNode value) {
        return value == null || value.isNull() ? null : value;
    }

    private static String text(
            JsonNode node, String field, String path, int min, int max, boolean required, List<FieldError> errors) {
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
        String unstorable = StorableText.problem(text);
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
        String json;
        try {
            json = canonicalText(value);
        } catch (Unkeepable e) {
            errors.add(new FieldError(path, e.getMessage()));
            return null;
        }
        int bytes = json.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_METADATA_BYTES) {
            errors.add(new FieldError(path, "must be at most " + MAX_METADATA_BYTES + " bytes of JSON, is " + bytes));
            return null;
        }
        return json;
    }

    /** A value that cannot be stored exactly as sent. */
    private static final class Unkeepable extends Exception {
        Unkeepable(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * The metadata as it is stored and hashed: keys sorted at every level (as the first version's hash sorted them),
     * strings escaped by Jackson, numbers in their exact {@code jsonb} form ({@link #exactNumber}).
     */
    private String canonicalText(JsonNode metadata) throws Unkeepable {
        StringWriter text = new StringWriter();
        try (JsonGenerator out = canonical.getFactory().createGenerator(text)) {
            writeCanonical(out, metadata);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write metadata", e);
        }
        return text.toString();
    }

    private static void writeCanonical(JsonGenerator out, JsonNode node) throws IOException, Unkeepable {
        if (node.isObject()) {
            TreeMap<String, JsonNode> sorted = new TreeMap<>();
            node.properties().forEach(e -> sorted.put(e.getKey(), e.getValue()));
            out.writeStartObject();
            for (Map.Entry<String, JsonNode> e : sorted.entrySet()) {
                out.writeFieldName(e.getKey());
                writeCanonical(out, e.getValue());
            }
            out.writeEndObject();
        } else if (node.isArray()) {
            out.writeStartArray();
            for (JsonNode item : node) {
                writeCanonical(out, item);
            }
            out.writeEndArray();
        } else if (node.isNumber()) {
            out.writeNumber(exactNumber(node));
        } else if (node.isTextual()) {
            out.writeString(node.textValue());
        } else if (node.isBoolean()) {
            out.writeBoolean(node.booleanValue());
        } else if (node.isNull()) {
            out.writeNull();
        } else {
            throw new Unkeepable("holds a value that is not JSON: " + node.getNodeType());
        }
    }

    /**
     * A number as PostgreSQL's {@code numeric} (inside {@code jsonb}) stores and prints it: integers as their digits;
     * decimals in plain notation with the exponent applied and the scale as sent, but never negative ({@code 1E+2} is
     * {@code 100}, {@code 2.50} stays {@code 2.50}). Refused when that text would not fit in the metadata at all (it
     * is checked before it is built: {@code 1e999999999} would be a gigabyte). A double (a tree not read by
     * {@link #read}) is taken at its shortest decimal; NaN and the infinities are refused.
     */
    private static String exactNumber(JsonNode number) throws Unkeepable {
        if (number.isIntegralNumber()) {
            return number.bigIntegerValue().toString();
        }
        BigDecimal value;
        if (number.isBigDecimal()) {
            value = number.decimalValue();
        } else {
            double d = number.doubleValue();
            if (!Double.isFinite(d)) {
                throw new Unkeepable("holds a number that is not finite");
            }
            value = new BigDecimal(Double.toString(d));
        }
        long scale = value.scale();
        if (value.signum() == 0 && scale <= 0) {
            return "0"; // 0E+999999999 is just 0
        }
        long integerDigits = Math.max(1, value.precision() - scale);
        long fractionDigits = Math.max(0, scale);
        long length = integerDigits + fractionDigits + (fractionDigits > 0 ? 1 : 0) + (value.signum() < 0 ? 1 : 0);
        if (length > MAX_METADATA_BYTES) {
            throw new Unkeepable("holds a number whose exact value takes " + length + " digits; metadata holds at most "
                    + MAX_METADATA_BYTES + " bytes");
        }
        return (scale < 0 ? value.setScale(0) : value).toPlainString();
    }

    private static String unstorableTree(JsonNode node) {
        if (node.isTextual()) {
            return StorableText.problem(node.textValue());
        }
        if (node.isObject()) {
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                String problem = StorableText.problem(field.getKey());
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

    private static void checkIdempotencyKey(String key, String field, List<FieldError> errors) {
        if (key.isEmpty() || key.length() > MAX_IDEMPOTENCY_KEY) {
            errors.add(new FieldError(field, "must be 1 to " + MAX_IDEMPOTENCY_KEY + " characters"));
        } else if (StorableText.problem(key) != null) {
            errors.add(new FieldError(field, StorableText.problem(key)));
        }
    }

    /**
     * SHA-256 of the request's content as canonical JSON, keys sorted at every level:
     * {@code {"body":..,"gateway":..,"metadata":..,"reference":..,"to":..}}, absent fields as null (an explicit
     * {@code null} is absent too); {@code "from"} (after {@code "body"}) only when the request names a sender, so that the
     * bytes of every request without one are those of the versions before it; {@code "ttlSeconds"},
     * {@code "validUntil"} and {@code "sendAt"} likewise, as sent (a replay of the same ttl is the same request, though
     * its instant differs); {@code "priority": "high"} only for a high message: {@code normal} named or left out is the
     * same message, and hashes as every request did before priorities. The metadata is its stored form
     * ({@link #canonicalText}): numbers at their exact value.
     * Stored with the idempotency key and compared on every replay, so these bytes must not change between versions
     * ({@code RequestHashTest} holds vectors of the first version; the two bugs it hashed wrongly, a {@code null}
     * gateway and rounded numbers, changed their bytes). Written field by field into a digest cloned from one looked up
     * once.
     */
    private byte[] hash(
            String to,
            String body,
            String reference,
            String gateway,
            String from,
            JsonNode validUntil,
            JsonNode ttlSeconds,
            JsonNode sendAt,
            Priority priority,
            JsonNode metadata) {
        MessageDigest digest = sha256();
        OutputStream digesting = new DigestOutputStream(OutputStream.nullOutputStream(), digest);
        try (JsonGenerator out = canonical.getFactory().createGenerator(digesting)) {
            out.writeStartObject();
            out.writeStringField("body", body);
            if (from != null) {
                out.writeStringField("from", from);
            }
            writeTextOrNull(out, "gateway", gateway);
            out.writeFieldName("metadata");
            if (metadata == null) {
                out.writeNull();
            } else {
                // Written again rather than copied as text: the same bytes as the first version's for the same tree.
                writeCanonical(out, metadata);
            }
            if (priority == Priority.HIGH) {
                out.writeStringField("priority", priority.wireName());
            }
            writeTextOrNull(out, "reference", reference);
            if (sendAt != null) {
                out.writeStringField("sendAt", sendAt.textValue());
            }
            out.writeStringField("to", to);
            if (ttlSeconds != null) {
                out.writeNumberField("ttlSeconds", ttlSeconds.longValue());
            }
            if (validUntil != null) {
                out.writeStringField("validUntil", validUntil.textValue());
            }
            out.writeEndObject();
        } catch (IOException | Unkeepable e) {
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
