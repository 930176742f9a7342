package dev.sendlog.service.resources;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.service.accept.SuppressionStore;
import dev.sendlog.service.api.ActorNames;
import dev.sendlog.service.api.SubmitParser;
import dev.sendlog.service.api.SuppressionChangeView;
import dev.sendlog.service.api.SuppressionHistory;
import dev.sendlog.service.api.SuppressionPage;
import dev.sendlog.service.api.SuppressionView;
import dev.sendlog.service.auth.Caller;
import dev.sendlog.service.auth.Role;
import dev.sendlog.service.errors.ApiProblem;
import dev.sendlog.service.errors.FieldError;
import dev.sendlog.service.log.StorableText;
import io.dropwizard.auth.Auth;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotSupportedException;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A tenant's suppression list (API.md, "Suppression list"). A client key manages its own tenant's list; an admin key
 * manages any tenant's, named by {@code tenant=}; a support key may read any tenant's but change none. Every change is
 * recorded with the caller's actor, the time and the reason; {@code GET .../{recipient}/changes} shows them.
 */
@Path("/v1/suppressions")
@Produces(MediaType.APPLICATION_JSON)
public final class SuppressionsResource {
    static final int MAX_REASON = 500;
    static final int MAX_LIMIT = 500;
    static final int DEFAULT_LIMIT = 50;

    private final SuppressionStore store;
    private final Pattern recipientPattern;

    /** @param recipientPattern what a recipient must match: the same pattern as a message's {@code to} */
    public SuppressionsResource(SuppressionStore store, String recipientPattern) {
        this.store = store;
        this.recipientPattern = Pattern.compile(recipientPattern);
    }

    @PUT
    @Path("/{recipient}")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed({Role.CLIENT_NAME, Role.ADMIN_NAME})
    public SuppressionView add(
            @Auth Caller caller,
            @PathParam("recipient") String recipient,
            @QueryParam("tenant") String tenant,
            @Context HttpHeaders headers,
            byte[] body)
            throws JsonProcessingException {
        if (headers.getMediaType() == null) {
            throw new NotSupportedException();
        }
        JsonNode json = SubmitParser.read(body);
        List<FieldError> errors = new ArrayList<>();
        recipient(recipient, errors);
        String reason = null;
        if (!json.isObject()) {
            errors.add(new FieldError("", "must be a JSON object such as {\"reason\": \"user replied STOP\"}"));
        } else {
            for (Iterator<String> names = json.fieldNames(); names.hasNext(); ) {
                String name = names.next();
                if (!name.equals("reason")) {
                    errors.add(new FieldError(name, "unknown field; only reason is accepted"));
                }
            }
            JsonNode r = json.get("reason");
            if (r == null || r.isNull()) {
                errors.add(new FieldError(
                        "reason", "required: why the recipient is suppressed (1 to " + MAX_REASON + " characters)"));
            } else if (!r.isTextual()) {
                errors.add(new FieldError("reason", "must be a string"));
            } else {
                reason = reason("reason", r.textValue(), errors);
            }
        }
        String scope = tenant(caller, tenant, errors);
        if (!errors.isEmpty()) {
            throw ApiProblem.badRequest("the suppression is invalid", errors);
        }
        SuppressionStore.Entry entry =
                store.add(scope, recipient, reason, caller.actor()).entry();
        return view(entry, caller);
    }

    @DELETE
    @Path("/{recipient}")
    @RolesAllowed({Role.CLIENT_NAME, Role.ADMIN_NAME})
    public Response remove(
            @Auth Caller caller,
            @PathParam("recipient") String recipient,
            @QueryParam("tenant") String tenant,
            @QueryParam("reason") String reason) {
        List<FieldError> errors = new ArrayList<>();
        recipient(recipient, errors);
        String why = reason == null ? null : reason("reason", reason, errors);
        String scope = tenant(caller, tenant, errors);
        if (!errors.isEmpty()) {
            throw ApiProblem.badRequest("the removal is invalid", errors);
        }
        if (!store.remove(scope, recipient, why, caller.actor())) {
            throw ApiProblem.notFound(recipient + " is not on the suppression list");
        }
        return Response.noContent().build();
    }

    @GET
    @RolesAllowed({Role.CLIENT_NAME, Role.SUPPORT_NAME, Role.ADMIN_NAME})
    public SuppressionPage list(
            @Auth Caller caller,
            @QueryParam("tenant") String tenant,
            @QueryParam("limit") String limit,
            @QueryParam("cursor") String cursor) {
        List<FieldError> errors = new ArrayList<>();
        int n = limit(limit, errors);
        String after = null;
        if (cursor != null) {
            after = decodeCursor(cursor);
            if (after == null) {
                errors.add(new FieldError("cursor", "is not a cursor this API returned"));
            }
        }
        String scope = tenant(caller, tenant, errors);
        if (!errors.isEmpty()) {
            throw ApiProblem.badRequest("the list request is invalid", errors);
        }
        List<SuppressionStore.Entry> page = store.list(scope, after, n + 1);
        List<SuppressionView> items =
                page.stream().limit(n).map(e -> view(e, caller)).toList();
        String next = page.size() > n ? encodeCursor(items.getLast().recipient()) : null;
        return new SuppressionPage(items, next);
    }

    @GET
    @Path("/{recipient}/changes")
    @RolesAllowed({Role.CLIENT_NAME, Role.SUPPORT_NAME, Role.ADMIN_NAME})
    public SuppressionHistory changes(
            @Auth Caller caller,
            @PathParam("recipient") String recipient,
            @QueryParam("tenant") String tenant,
            @QueryParam("limit") String limit,
            @QueryParam("cursor") String cursor) {
        List<FieldError> errors = new ArrayList<>();
        recipient(recipient, errors);
        int n = limit(limit, errors);
        Long before = null;
        if (cursor != null) {
            try {
                before = Long.parseLong(cursor);
            } catch (NumberFormatException e) {
                errors.add(new FieldError("cursor", "is not a cursor this API returned"));
            }
        }
        String scope = tenant(caller, tenant, errors);
        if (!errors.isEmpty()) {
            throw ApiProblem.badRequest("the history request is invalid", errors);
        }
        List<SuppressionStore.Change> page = store.history(scope, recipient, before, n + 1);
        List<SuppressionStore.Change> shown = page.stream().limit(n).toList();
        return new SuppressionHistory(
                recipient,
                shown.stream()
                        .map(c -> new SuppressionChangeView(
                                c.action(), c.reason(), ActorNames.shown(c.actor(), caller.role()), c.at()))
                        .toList(),
                page.size() > n ? Long.toString(shown.getLast().id()) : null);
    }

    private static SuppressionView view(SuppressionStore.Entry e, Caller caller) {
        return new SuppressionView(e.recipient(), e.reason(), e.since(), ActorNames.shown(e.actor(), caller.role()));
    }

    private void recipient(String recipient, List<FieldError> errors) {
        if (!recipientPattern.matcher(recipient).matches()) {
            errors.add(new FieldError(
                    "recipient",
                    "is not a valid recipient: must match " + recipientPattern.pattern()
                            + " (E.164 by default: + and 7 to 15 digits; in a path, + may be sent as %2B)"));
        }
    }

    private static String reason(String field, String value, List<FieldError> errors) {
        String unstorable = StorableText.problem(value);
        if (unstorable != null) {
            errors.add(new FieldError(field, unstorable));
            return null;
        }
        int length = value.codePointCount(0, value.length());
        if (value.isBlank() || length > MAX_REASON) {
            errors.add(
                    new FieldError(field, "must be 1 to " + MAX_REASON + " characters, not only spaces; is " + length));
            return null;
        }
        return value;
    }

    private static int limit(String limit, List<FieldError> errors) {
        if (limit == null) {
            return DEFAULT_LIMIT;
        }
        try {
            int n = Integer.parseInt(limit);
            if (n >= 1 && n <= MAX_LIMIT) {
                return n;
            }
            errors.add(new FieldError("limit", "must be 1 to " + MAX_LIMIT));
        } catch (NumberFormatException e) {
            errors.add(new FieldError("limit", "must be a whole number"));
        }
        return DEFAULT_LIMIT;
    }

    /** Whose list: see {@link TenantScope}. */
    private String tenant(Caller caller, String tenant, List<FieldError> errors) {
        return TenantScope.tenant(caller, tenant, errors, store::tenantExists, "list");
    }

    /** The list's cursor: the last recipient shown, base64url (a raw + in a query string would read as a space). */
    static String encodeCursor(String recipient) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(recipient.getBytes(StandardCharsets.UTF_8));
    }

    private static String decodeCursor(String cursor) {
        try {
            byte[] bytes = Base64.getUrlDecoder().decode(cursor);
            String text = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
            return text.isEmpty() || StorableText.problem(text) != null ? null : text;
        } catch (IllegalArgumentException | CharacterCodingException e) {
            return null;
        }
    }
}
