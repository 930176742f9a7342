package dev.sendlog.service.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.events.Resolved;
import dev.sendlog.service.errors.ApiProblem;
import dev.sendlog.service.errors.FieldError;
import dev.sendlog.service.log.StorableText;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * The body of {@code POST /v1/admin/parked/{id}/resolve} (API.md): {@code {"action": "apply", "status": ...}} or
 * {@code {"action": "discard", "note": ...}}, with an optional {@code messageId} for input no message was matched to.
 * Read strictly, because what an admin writes is recorded as history: an unknown field, a value that is not a string,
 * or text PostgreSQL cannot keep as sent (a NUL, a lone surrogate) is refused with 400 naming the field, never dropped,
 * stored as "" or changed.
 */
public record ResolveRequest(Resolved.Action action, String status, String note, UUID messageId) {
    private static final Set<String> FIELDS = Set.of("action", "status", "note", "messageId");

    public static ResolveRequest parse(JsonNode body) {
        if (body == null || !body.isObject()) {
            throw ApiProblem.badRequest(
                    "the body must be {\"action\": \"apply\", \"status\": ...} or "
                            + "{\"action\": \"discard\", \"note\": ...}",
                    List.of());
        }
        List<FieldError> errors = new ArrayList<>();
        body.fieldNames().forEachRemaining(f -> {
            if (!FIELDS.contains(f)) {
                errors.add(new FieldError(f, "unknown field; one of " + FIELDS));
            }
        });
        String action = text(body, "action", errors);
        if (action == null && !errors.stream().anyMatch(e -> e.field().equals("action"))) {
            errors.add(new FieldError("action", "is required: apply or discard"));
        } else if (action != null
                && java.util.Arrays.stream(Resolved.Action.values())
                        .noneMatch(a -> a.wire().equals(action))) {
            errors.add(new FieldError("action", "must be apply or discard"));
        }
        String status = text(body, "status", errors);
        String note = text(body, "note", errors);
        String id = text(body, "messageId", errors);
        UUID messageId = null;
        if (id != null) {
            try {
                messageId = UUID.fromString(id);
            } catch (IllegalArgumentException e) {
                errors.add(new FieldError("messageId", "is not a message id"));
            }
        }
        if (!errors.isEmpty()) {
            throw ApiProblem.badRequest(
                    errors.size() == 1
                            ? errors.getFirst().field() + " "
                                    + errors.getFirst().problem()
                            : "the resolution has " + errors.size() + " invalid fields",
                    errors);
        }
        return new ResolveRequest(Resolved.Action.ofWire(action), status, note, messageId);
    }

    /** The field's text; null when absent or null; an error when it is another type or cannot be stored as sent. */
    private static String text(JsonNode body, String field, List<FieldError> errors) {
        JsonNode v = body.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            errors.add(new FieldError(field, "must be a string"));
            return null;
        }
        String unstorable = StorableText.problem(v.textValue());
        if (unstorable != null) {
            errors.add(new FieldError(field, unstorable));
            return null;
        }
        return v.textValue();
    }
}
