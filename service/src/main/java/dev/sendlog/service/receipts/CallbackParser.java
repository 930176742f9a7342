package dev.sendlog.service.receipts;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sendlog.events.JsonMappers;
import dev.sendlog.events.ReceiptKind;
import dev.sendlog.service.log.StorableText;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Reads a raw callback body (API.md: id, reference, status, timestamp, errorCode) through the gateway's
 * vocabulary. The result is either a {@link ParsedCallback} or the reason it must be parked.
 */
public final class CallbackParser {
    private static final ObjectMapper JSON = JsonMappers.pooled()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(com.fasterxml.jackson.core.JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    private static final int MAX_FIELD = 256;
    /** The fields of API.md's callback, the ones recorded with a receipt. */
    private static final List<String> FIELDS = List.of("id", "reference", "status", "timestamp", "errorCode");

    /**
     * The parse result: a callback, or the reason to park it. A parked one still carries the provider id and our
     * reference when it had readable ones, so support can see which message it was about.
     */
    public record Result(ParsedCallback callback, ParkReason parkReason, String providerId, String reference) {
        static Result park(ParkReason.Kind kind, String reason) {
            return new Result(null, ParkReason.of(kind, reason), null, null);
        }

        static Result park(ParkReason.Kind kind, String reason, JsonNode node) {
            return new Result(
                    null,
                    ParkReason.of(kind, reason),
                    text(node, "id").orElse(null),
                    text(node, "reference").orElse(null));
        }
    }

    private CallbackParser() {}

    public static Result parse(byte[] body, Vocabulary vocabulary) {
        JsonNode node;
        try {
            node = JSON.readTree(body);
        } catch (IOException e) {
            return Result.park(ParkReason.Kind.NOT_JSON, "body is not JSON");
        }
        if (node == null || !node.isObject()) {
            return Result.park(ParkReason.Kind.NOT_JSON, "body is not a JSON object");
        }
        // Every field we record is taken as sent or the callback is parked: a NUL PostgreSQL cannot store, a lone
        // surrogate its encoder would turn into '?', or an optional field of the wrong type is never dropped or
        // changed.
        for (String field : FIELDS) {
            JsonNode v = node.get(field);
            if (v != null && v.isTextual()) {
                String unstorable = StorableText.problem(v.textValue());
                if (unstorable != null) {
                    return Result.park(ParkReason.Kind.BAD_TEXT, "field " + field + " " + unstorable, node);
                }
            }
        }
        Optional<String> id = text(node, "id");
        Optional<String> status = text(node, "status");
        Optional<String> timestamp = text(node, "timestamp");
        if (id.isEmpty()) {
            return Result.park(ParkReason.Kind.MISSING_FIELD, "missing or invalid field id", node);
        }
        if (status.isEmpty()) {
            return Result.park(ParkReason.Kind.MISSING_FIELD, "missing or invalid field status", node);
        }
        if (timestamp.isEmpty()) {
            return Result.park(ParkReason.Kind.MISSING_FIELD, "missing or invalid field timestamp", node);
        }
        for (String optional : List.of("reference", "errorCode")) {
            if (!optional(node, optional)) {
                return Result.park(
                        ParkReason.Kind.MISSING_FIELD,
                        "invalid field " + optional + " (a string of at most " + MAX_FIELD
                                + " characters when present)",
                        node);
            }
        }
        Optional<ReceiptKind> kind = vocabulary.map(status.get());
        if (kind.isEmpty()) {
            return Result.park(ParkReason.Kind.UNMAPPED_STATUS, "unmapped status " + status.get(), node);
        }
        Optional<Instant> at = vocabulary.parseTimestamp(timestamp.get());
        if (at.isEmpty()) {
            return Result.park(ParkReason.Kind.BAD_TIMESTAMP, "unparseable timestamp " + timestamp.get(), node);
        }
        String reference = text(node, "reference").orElse(null);
        String errorCode = text(node, "errorCode").orElse(null);
        return new Result(
                new ParsedCallback(id.get(), reference, status.get(), kind.get(), at.get(), errorCode),
                null,
                id.get(),
                reference);
    }

    /** An optional field is absent, null, blank (no value given), or a string we can keep as it is. */
    private static boolean optional(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null
                || v.isNull()
                || (v.isTextual()
                        && (v.textValue().isBlank() || text(node, field).isPresent()));
    }

    private static Optional<String> text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        if (v == null
                || !v.isTextual()
                || v.textValue().isBlank()
                || v.textValue().length() > MAX_FIELD
                || StorableText.problem(v.textValue()) != null) {
            return Optional.empty();
        }
        return Optional.of(v.textValue());
    }
}
