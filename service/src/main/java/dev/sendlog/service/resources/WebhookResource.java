package dev.sendlog.service.resources;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.projections.MessageStatus;
import dev.sendlog.service.api.SubmitParser;
import dev.sendlog.service.api.WebhookView;
import dev.sendlog.service.auth.Caller;
import dev.sendlog.service.auth.Role;
import dev.sendlog.service.errors.ApiProblem;
import dev.sendlog.service.errors.FieldError;
import dev.sendlog.service.log.StorableText;
import dev.sendlog.service.webhooks.WebhookStore;
import dev.sendlog.service.webhooks.WebhookTargets;
import io.dropwizard.auth.Auth;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotSupportedException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * A tenant's status webhook registration (API.md, "Status webhooks"; issue 27). A client key manages its own tenant's;
 * an admin key manages any tenant's, named by {@code tenant=}; a support key may read any tenant's (never its secret,
 * which nobody can read back) but change none. Every change is recorded in {@code webhook_changes} with the caller's
 * actor.
 *
 * <p>Deliveries are owed from the moment a registration commits: every status event appended after it that the
 * registration asks for ({@code EventStore}, {@code AcceptWriter}); {@code WebhookWorker} posts them. A change of URL
 * applies to deliveries still owed.
 */
@Path("/v1/webhook")
@Produces(MediaType.APPLICATION_JSON)
public final class WebhookResource {
    /** What a registration without {@code events} receives: the final statuses, in the API's order. */
    public static final List<String> DEFAULT_EVENTS = Arrays.stream(MessageStatus.values())
            .filter(MessageStatus::isFinal)
            .map(Enum::name)
            .toList();

    private static final Set<String> FIELDS = Set.of("url", "events");

    private final WebhookStore store;
    private final WebhookTargets targets;

    public WebhookResource(WebhookStore store, WebhookTargets targets) {
        this.store = store;
        this.targets = targets;
    }

    /**
     * Registers or changes the endpoint. The first registration answers the secret, once; a change of url or events
     * keeps the secret and does not show it (POST rotate-secret makes a new one).
     */
    @PUT
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed({Role.CLIENT_NAME, Role.ADMIN_NAME})
    public WebhookView put(
            @Auth Caller caller, @QueryParam("tenant") String tenant, @Context HttpHeaders headers, byte[] body)
            throws JsonProcessingException {
        if (headers.getMediaType() == null) {
            throw new NotSupportedException();
        }
        JsonNode json = SubmitParser.read(body);
        List<FieldError> errors = new ArrayList<>();
        String url = null;
        List<String> events = DEFAULT_EVENTS;
        if (!json.isObject()) {
            errors.add(new FieldError(
                    "", "must be a JSON object such as {\"url\": \"https://example.com/hooks/sendlog\"}"));
        } else {
            for (Iterator<String> names = json.fieldNames(); names.hasNext(); ) {
                String name = names.next();
                if (!FIELDS.contains(name)) {
                    errors.add(new FieldError(name, "unknown field; only url and events are accepted"));
                }
            }
            url = url(json.get("url"), errors);
            events = events(json.get("events"), errors);
        }
        String scope = tenant(caller, tenant, errors);
        if (errors.isEmpty()) {
            // Last, so that a request refused for its form costs no DNS lookup.
            String refusal = targets.refusal(url);
            if (refusal != null) {
                errors.add(new FieldError("url", refusal));
            }
        }
        if (!errors.isEmpty()) {
            throw ApiProblem.badRequest("the webhook is invalid", errors);
        }
        WebhookStore.Saved saved = store.put(scope, url, events, caller.actor());
        return new WebhookView(
                saved.registration().url(),
                saved.registration().events(),
                saved.newSecret() == null ? null : saved.newSecret().reveal());
    }

    /** A new secret, answered once; the previous one keeps signing for 24 hours, beside it. */
    @POST
    @Path("/rotate-secret")
    @RolesAllowed({Role.CLIENT_NAME, Role.ADMIN_NAME})
    public WebhookView rotate(@Auth Caller caller, @QueryParam("tenant") String tenant) {
        String scope = scope(caller, tenant);
        WebhookStore.Rotated rotated = store.rotate(scope, caller.actor())
                .orElseThrow(() -> ApiProblem.notFound("no webhook is registered for tenant " + scope));
        return new WebhookView(
                rotated.registration().url(),
                rotated.registration().events(),
                rotated.secret().reveal());
    }

    @GET
    @RolesAllowed({Role.CLIENT_NAME, Role.SUPPORT_NAME, Role.ADMIN_NAME})
    public WebhookView get(@Auth Caller caller, @QueryParam("tenant") String tenant) {
        String scope = scope(caller, tenant);
        WebhookStore.Registration r = store.find(scope)
                .orElseThrow(() -> ApiProblem.notFound("no webhook is registered for tenant " + scope));
        return new WebhookView(r.url(), r.events(), null);
    }

    @DELETE
    @RolesAllowed({Role.CLIENT_NAME, Role.ADMIN_NAME})
    public Response delete(@Auth Caller caller, @QueryParam("tenant") String tenant) {
        String scope = scope(caller, tenant);
        if (!store.delete(scope, caller.actor())) {
            throw ApiProblem.notFound("no webhook is registered for tenant " + scope);
        }
        return Response.noContent().build();
    }

    private static String url(JsonNode node, List<FieldError> errors) {
        if (node == null || node.isNull()) {
            errors.add(new FieldError("url", "required: the http or https URL deliveries are posted to"));
            return null;
        }
        if (!node.isTextual()) {
            errors.add(new FieldError("url", "must be a string"));
            return null;
        }
        String url = node.textValue();
        String unstorable = StorableText.problem(url);
        if (unstorable != null) {
            errors.add(new FieldError("url", unstorable));
            return null;
        }
        if (url.length() > WebhookTargets.MAX_LENGTH) {
            errors.add(new FieldError(
                    "url", "must be at most " + WebhookTargets.MAX_LENGTH + " characters; is " + url.length()));
            return null;
        }
        return url;
    }

    /** The statuses asked for, in the API's order; absent means the final ones. Unknown, repeated or none: a 400. */
    private static List<String> events(JsonNode node, List<FieldError> errors) {
        if (node == null) {
            return DEFAULT_EVENTS;
        }
        if (!node.isArray()) {
            errors.add(
                    new FieldError("events", "must be an array of statuses such as [\"DELIVERED\", \"UNDELIVERED\"]"));
            return DEFAULT_EVENTS;
        }
        if (node.isEmpty()) {
            errors.add(new FieldError(
                    "events",
                    "must name at least one status (leave it out for the final statuses: "
                            + String.join(", ", DEFAULT_EVENTS) + ")"));
            return DEFAULT_EVENTS;
        }
        int known = MessageStatus.values().length;
        if (node.size() > known) {
            errors.add(new FieldError("events", "at most " + known + " statuses, each once; has " + node.size()));
            return DEFAULT_EVENTS;
        }
        EnumSet<MessageStatus> chosen = EnumSet.noneOf(MessageStatus.class);
        for (int i = 0; i < node.size(); i++) {
            JsonNode item = node.get(i);
            String field = "events[" + i + "]";
            MessageStatus status = item.isTextual() ? status(item.textValue()) : null;
            if (status == null) {
                errors.add(new FieldError(
                        field, "is not a status of the API; one of " + Arrays.toString(MessageStatus.values())));
            } else if (!chosen.add(status)) {
                errors.add(new FieldError(field, status + " is listed twice"));
            }
        }
        return chosen.stream().map(Enum::name).toList();
    }

    private static MessageStatus status(String name) {
        for (MessageStatus s : MessageStatus.values()) {
            if (s.name().equals(name)) {
                return s;
            }
        }
        return null;
    }

    /** The tenant of a request without a body: a 400 naming {@code tenant} when it is not one this caller may name. */
    private String scope(Caller caller, String tenant) {
        List<FieldError> errors = new ArrayList<>();
        String scope = tenant(caller, tenant, errors);
        if (!errors.isEmpty()) {
            throw ApiProblem.badRequest("the webhook request is invalid", errors);
        }
        return scope;
    }

    /** Whose webhook: see {@link TenantScope}. */
    private String tenant(Caller caller, String tenant, List<FieldError> errors) {
        return TenantScope.tenant(caller, tenant, errors, store::tenantExists, "webhook");
    }
}
