package dev.sendlog.service.resources;

import dev.sendlog.service.api.MessageView;
import dev.sendlog.service.api.SearchPage;
import dev.sendlog.service.auth.Caller;
import dev.sendlog.service.auth.Role;
import dev.sendlog.service.core.AdminActions;
import dev.sendlog.service.core.MessageDetails;
import dev.sendlog.service.core.MessageReader;
import dev.sendlog.service.errors.ApiProblem;
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
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** The support and admin API of API.md. */
@Path("/v1/admin")
@Produces(MediaType.APPLICATION_JSON)
public final class AdminResource {
    private final MessageReader reader;
    private final AdminActions actions;

    public AdminResource(MessageReader reader, AdminActions actions) {
        this.reader = reader;
        this.actions = actions;
    }

    /** Messages in DEAD, newest first, keyset-paginated (from the status projection). */
    @GET
    @Path("/dead")
    @RolesAllowed({Role.SUPPORT_NAME, Role.ADMIN_NAME})
    public SearchPage dead(@Auth Caller caller, @QueryParam("limit") String limit, @QueryParam("cursor") String cursor) {
        var query = SearchParams.parse(caller, null, null, "DEAD", null, null, limit, cursor, null);
        List<MessageDetails> page = reader.search(query);
        boolean more = page.size() > query.limit();
        List<MessageDetails> items = more ? page.subList(0, query.limit()) : page;
        return new SearchPage(items.stream().map(MessageView::of).toList(),
                more ? items.getLast().row().id().toString() : null);
    }

    @POST
    @Path("/messages/{id}/redrive")
    @RolesAllowed(Role.ADMIN_NAME)
    public Response redrive(@Auth Caller caller, @PathParam("id") String id) {
        UUID uuid;
        try {
            uuid = UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw ApiProblem.notFound("no message " + id);
        }
        var redriven = actions.redrive(uuid, caller.actor());
        return Response.accepted(Map.of("id", uuid, "status", "RETRYING", "attempt", redriven.attempt())).build();
    }
}
