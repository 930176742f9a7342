package dev.sendlog.service.resources;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.events.Lanes;
import dev.sendlog.service.api.MessageView;
import dev.sendlog.service.api.ResolveRequest;
import dev.sendlog.service.api.SearchPage;
import dev.sendlog.service.auth.ApiKeyStore;
import dev.sendlog.service.auth.Caller;
import dev.sendlog.service.auth.Role;
import dev.sendlog.service.controls.AdminActions;
import dev.sendlog.service.errors.ApiProblem;
import dev.sendlog.service.log.MessageReader;
import dev.sendlog.service.log.SearchResult;
import dev.sendlog.service.metrics.PipelineBreakdown;
import dev.sendlog.service.overview.PipelineOverview;
import dev.sendlog.service.receipts.ParkedStore;
import dev.sendlog.service.receipts.ParkedView;
import io.dropwizard.auth.Auth;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** The support and admin API of API.md. */
@Path("/v1/admin")
@Produces(MediaType.APPLICATION_JSON)
public final class AdminResource {
    private final MessageReader reader;
    private final AdminActions actions;
    private final ParkedStore parked;
    private final Lanes lanes;
    private final MetricRegistry metrics;
    private final ApiKeyStore keys;
    private final PipelineOverview overview;

    public AdminResource(
            MessageReader reader,
            AdminActions actions,
            ParkedStore parked,
            Lanes lanes,
            MetricRegistry metrics,
            ApiKeyStore keys,
            PipelineOverview overview) {
        this.overview = overview;
        this.reader = reader;
        this.actions = actions;
        this.parked = parked;
        this.lanes = lanes;
        this.metrics = metrics;
        this.keys = keys;
    }

    /** The tenants that hold a client key, in order: {@code {"tenants": [...]}} (the console's tenant picker). */
    @GET
    @Path("/tenants")
    @RolesAllowed({Role.SUPPORT_NAME, Role.ADMIN_NAME})
    public Map<String, List<String>> tenants(@Auth Caller caller) {
        return Map.of("tenants", keys.clientTenants());
    }

    /** The timing breakdown of the last minute per stage in this process, and its counters. */
    @GET
    @Path("/pipeline")
    @RolesAllowed({Role.SUPPORT_NAME, Role.ADMIN_NAME})
    public PipelineBreakdown.Breakdown pipeline(@Auth Caller caller) {
        return PipelineBreakdown.of(metrics);
    }

    /**
     * The pipeline view: where messages are now, per stage, the last hour per minute (throughput, p50 and p99 per
     * stage), per gateway and tenant the last hour's outcomes, the health checks and alarms. Across every process; at
     * most one computation per 2 s per process, however many consoles poll.
     */
    @GET
    @Path("/overview")
    @RolesAllowed({Role.SUPPORT_NAME, Role.ADMIN_NAME})
    public PipelineOverview.Overview overview(@Auth Caller caller) {
        return overview.get();
    }

    /** Parked provider input, newest first: raw body, gateway, reason, time. {@code all=true} includes resolved rows. */
    @GET
    @Path("/parked")
    @RolesAllowed({Role.SUPPORT_NAME, Role.ADMIN_NAME})
    public Map<String, Object> parked(
            @Auth Caller caller,
            @QueryParam("limit") String limit,
            @QueryParam("cursor") String cursor,
            @QueryParam("all") boolean all) {
        var page = SearchParams.parse(caller, null, null, null, null, null, limit, null, null);
        Long before = null;
        if (cursor != null) {
            try {
                before = Long.parseLong(cursor);
            } catch (NumberFormatException e) {
                throw ApiProblem.badRequest("cursor is not one this API returned", List.of());
            }
        }
        List<ParkedView> items = parked.list(page.limit(), before, all);
        boolean more = items.size() > page.limit();
        List<ParkedView> shown = more ? items.subList(0, page.limit()) : items;
        java.util.Map<String, Object> body = new java.util.LinkedHashMap<>();
        body.put("items", shown);
        body.put("nextCursor", more ? Long.toString(shown.getLast().id()) : null);
        return body;
    }

    /** {@code {"action": "apply", "status": "DELIVERED"}} or {@code {"action": "discard", "note": "..."}}. */
    @POST
    @Path("/parked/{id}/resolve")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Role.ADMIN_NAME)
    public Response resolve(@Auth Caller caller, @PathParam("id") long id, JsonNode body) {
        ResolveRequest r = ResolveRequest.parse(body);
        parked.resolve(id, r.action(), r.status(), r.note(), r.messageId(), caller.actor());
        return Response.ok(Map.of("id", id, "resolved", r.action())).build();
    }

    /** Messages in DEAD, newest first, keyset-paginated (from the final index). */
    @GET
    @Path("/dead")
    @RolesAllowed({Role.SUPPORT_NAME, Role.ADMIN_NAME})
    public SearchPage dead(
            @Auth Caller caller, @QueryParam("limit") String limit, @QueryParam("cursor") String cursor) {
        var query = SearchParams.parse(caller, null, null, "DEAD", null, null, limit, cursor, null);
        SearchResult page = reader.search(query);
        return new SearchPage(
                page.items().stream().map(m -> MessageView.of(m, lanes)).toList(),
                page.next() == null ? null : page.next().toString());
    }

    @POST
    @Path("/messages/{id}/redrive")
    @RolesAllowed(Role.ADMIN_NAME)
    public Response redrive(@Auth Caller caller, @PathParam("id") String id) {
        UUID uuid = MessageIdParam.parse(id);
        var redriven = actions.redrive(uuid, caller.actor());
        return Response.accepted(Map.of("id", uuid, "status", "RETRYING", "attempt", redriven.attempt()))
                .build();
    }
}
