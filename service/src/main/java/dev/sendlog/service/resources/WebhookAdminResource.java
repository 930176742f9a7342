package dev.sendlog.service.resources;

import dev.sendlog.service.auth.Caller;
import dev.sendlog.service.auth.Role;
import dev.sendlog.service.errors.ApiProblem;
import dev.sendlog.service.errors.FieldError;
import dev.sendlog.service.webhooks.WebhookDeliveries;
import io.dropwizard.auth.Auth;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Dead status webhook deliveries (API.md, "Status webhooks"): support and admins list them, newest first, optionally of
 * one tenant; an admin re-drives one by its event id, which owes it again from now, with a fresh 24 hours of retries.
 */
@Path("/v1/admin/webhooks")
@Produces(MediaType.APPLICATION_JSON)
public final class WebhookAdminResource {
    private static final Logger LOG = LoggerFactory.getLogger(WebhookAdminResource.class);

    private final WebhookDeliveries deliveries;
    private final InstantSource clock;

    public WebhookAdminResource(WebhookDeliveries deliveries, InstantSource clock) {
        this.deliveries = deliveries;
        this.clock = clock;
    }

    @GET
    @Path("/dead")
    @RolesAllowed({Role.SUPPORT_NAME, Role.ADMIN_NAME})
    public Map<String, Object> dead(
            @Auth Caller caller,
            @QueryParam("tenant") String tenant,
            @QueryParam("limit") String limit,
            @QueryParam("cursor") String cursor) {
        List<FieldError> errors = new ArrayList<>();
        int n = SearchParams.DEFAULT_LIMIT;
        if (limit != null) {
            try {
                n = Integer.parseInt(limit);
                if (n < 1 || n > SearchParams.MAX_LIMIT) {
                    errors.add(new FieldError("limit", "must be 1 to " + SearchParams.MAX_LIMIT));
                }
            } catch (NumberFormatException e) {
                errors.add(new FieldError("limit", "must be a whole number"));
            }
        }
        WebhookDeliveries.DeadCursor before = null;
        if (cursor != null) {
            before = WebhookDeliveries.DeadCursor.parse(cursor);
            if (before == null) {
                errors.add(new FieldError("cursor", "is not a cursor this API returned"));
            }
        }
        if (tenant != null && (tenant.isBlank() || tenant.length() > 200)) {
            errors.add(new FieldError("tenant", "must be a tenant's name"));
        }
        if (!errors.isEmpty()) {
            throw ApiProblem.badRequest("the query is invalid", errors);
        }
        List<WebhookDeliveries.DeadView> rows = deliveries.dead(tenant, n + 1, before);
        boolean more = rows.size() > n;
        List<WebhookDeliveries.DeadView> shown = more ? rows.subList(0, n) : rows;
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("items", shown);
        String next = null;
        if (more) {
            WebhookDeliveries.DeadView last = shown.getLast();
            next = new WebhookDeliveries.DeadCursor(
                            last.deadAt(), java.util.UUID.fromString(last.messageId()), last.seq())
                    .encode();
        }
        body.put("nextCursor", next);
        return body;
    }

    /** Owes a DEAD delivery again: 202; 404 when there is no such delivery; 409 when it is not DEAD. */
    @POST
    @Path("/{eventId}/redrive")
    @RolesAllowed(Role.ADMIN_NAME)
    public Response redrive(@Auth Caller caller, @PathParam("eventId") String eventId) {
        WebhookDeliveries.EventId id = WebhookDeliveries.EventId.parse(eventId);
        if (id == null) {
            throw ApiProblem.badRequest(
                    "the event id is invalid",
                    List.of(
                            new FieldError(
                                    "eventId",
                                    "must be <message id>:<seq>, as a delivery's Sendlog-Event-Id header and the dead list give it")));
        }
        Boolean redriven = deliveries
                .redrive(id.messageId(), id.seq(), null, clock.instant())
                .orElseThrow(() -> ApiProblem.notFound("no webhook delivery " + eventId));
        if (!redriven) {
            throw ApiProblem.conflict(
                    "webhook delivery " + eventId + " is not DEAD: it is delivered, or still owed and retried",
                    List.of());
        }
        LOG.info("webhook delivery re-driven event_id={} actor={}", eventId, caller.actor());
        return Response.accepted(Map.of("eventId", eventId, "state", "OWED")).build();
    }
}
