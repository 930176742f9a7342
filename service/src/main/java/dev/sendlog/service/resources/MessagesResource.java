package dev.sendlog.service.resources;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.sendlog.events.EventCodec;
import dev.sendlog.events.Lanes;
import dev.sendlog.projections.History;
import dev.sendlog.service.accept.AcceptService;
import dev.sendlog.service.accept.AcceptedItem;
import dev.sendlog.service.accept.MessageDraft;
import dev.sendlog.service.api.ActorNames;
import dev.sendlog.service.api.BatchResponse;
import dev.sendlog.service.api.EventView;
import dev.sendlog.service.api.HistoryView;
import dev.sendlog.service.api.MessageView;
import dev.sendlog.service.api.SearchPage;
import dev.sendlog.service.api.SubmitParser;
import dev.sendlog.service.api.SubmitResponse;
import dev.sendlog.service.api.WebhookDeliveryView;
import dev.sendlog.service.auth.Caller;
import dev.sendlog.service.auth.Role;
import dev.sendlog.service.controls.Cancellation;
import dev.sendlog.service.errors.ApiProblem;
import dev.sendlog.service.errors.FieldError;
import dev.sendlog.service.log.MessageDetails;
import dev.sendlog.service.log.MessageReader;
import dev.sendlog.service.log.SearchQuery;
import dev.sendlog.service.log.SearchResult;
import dev.sendlog.service.webhooks.WebhookDeliveries;
import io.dropwizard.auth.Auth;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.NotSupportedException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.util.List;
import java.util.UUID;

/** The client API of API.md: submit, read one, read its history, search. */
@Path("/v1/messages")
@Produces(MediaType.APPLICATION_JSON)
public final class MessagesResource {
    private final SubmitParser parser;
    private final AcceptService accept;
    private final MessageReader reader;
    private final EventCodec codec;
    private final String locationPrefix;
    private final Cancellation cancellation;
    private final Lanes lanes;
    private final WebhookDeliveries webhooks;

    /**
     * @param publicBaseUrl where clients reach the API: the base of every {@code Location}, never the request's Host
     * @param lanes         the configured lanes, by which a message's stored shard shows its priority
     */
    public MessagesResource(
            SubmitParser parser,
            AcceptService accept,
            MessageReader reader,
            EventCodec codec,
            String publicBaseUrl,
            Cancellation cancellation,
            Lanes lanes,
            WebhookDeliveries webhooks) {
        this.webhooks = webhooks;
        this.cancellation = cancellation;
        this.lanes = lanes;
        this.parser = parser;
        this.accept = accept;
        this.reader = reader;
        this.codec = codec;
        this.locationPrefix = locationPrefix(publicBaseUrl);
    }

    /**
     * A body without a Content-Type (or with one {@code HeaderSyntaxFilter} dropped because it does not parse) is not
     * declared JSON: 415, as Jersey answered when it read the body as JSON itself. A declared type that is not JSON
     * never gets here ({@code @Consumes}).
     */
    private static void declaredJson(HttpHeaders headers) {
        if (headers.getMediaType() == null) {
            throw new NotSupportedException();
        }
    }

    /** {@code <publicBaseUrl>/v1/messages/}, to which a message id is appended. */
    static String locationPrefix(String publicBaseUrl) {
        String base =
                publicBaseUrl.endsWith("/") ? publicBaseUrl.substring(0, publicBaseUrl.length() - 1) : publicBaseUrl;
        return base + "/v1/messages/";
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Role.CLIENT_NAME)
    public Response submit(
            @Auth Caller caller,
            @HeaderParam("Idempotency-Key") String idempotencyKey,
            @Context HttpHeaders headers,
            byte[] body)
            throws JsonProcessingException {
        declaredJson(headers);
        // Read here rather than by Jersey's JSON provider: trailing bytes refused, numbers kept exact
        // (SubmitParser.read).
        MessageDraft draft = parser.single(SubmitParser.read(body), idempotencyKey);
        AcceptedItem item =
                accept.submit(caller.tenant(), List.of(draft), false).getFirst();
        Response.ResponseBuilder response = Response.accepted(
                        new SubmitResponse(item.id(), "ACCEPTED", item.acceptedAt()))
                .location(URI.create(locationPrefix + item.id()));
        if (item.replayed()) {
            response.header("Idempotent-Replayed", "true");
        }
        return response.build();
    }

    @POST
    @Path("/batch")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Role.CLIENT_NAME)
    public Response submitBatch(
            @Auth Caller caller,
            @HeaderParam("Idempotency-Key") String idempotencyKey,
            @Context HttpHeaders headers,
            byte[] body)
            throws JsonProcessingException {
        declaredJson(headers);
        if (idempotencyKey != null) {
            throw ApiProblem.badRequest(
                    "a batch takes an idempotencyKey per message, not the Idempotency-Key header",
                    List.of(new FieldError("Idempotency-Key", "not accepted on /v1/messages/batch")));
        }
        List<MessageDraft> drafts = parser.batch(SubmitParser.read(body));
        List<AcceptedItem> items = accept.submit(caller.tenant(), drafts, true);
        return Response.accepted(new BatchResponse(items.stream()
                        .map(i -> new SubmitResponse(i.id(), "ACCEPTED", i.acceptedAt()))
                        .toList()))
                .build();
    }

    @GET
    @Path("/{id}")
    @RolesAllowed({Role.CLIENT_NAME, Role.SUPPORT_NAME, Role.ADMIN_NAME})
    public MessageView get(@Auth Caller caller, @PathParam("id") String id) {
        return MessageView.of(visible(caller, id), lanes);
    }

    /**
     * Cancels a message no worker has claimed (API.md): a client key of its tenant, or an admin. Support may read it
     * but not cancel it (403), another tenant's message is absent (404), a message claimed or ended answers 409 naming
     * its status, and a second cancel answers the cancelled message again.
     */
    @POST
    @Path("/{id}/cancel")
    @RolesAllowed({Role.CLIENT_NAME, Role.ADMIN_NAME})
    public MessageView cancel(@Auth Caller caller, @PathParam("id") String id) {
        UUID uuid = MessageIdParam.parse(id);
        return MessageView.of(cancellation.cancel(uuid, caller.actor(), caller::mayRead), lanes);
    }

    @GET
    @Path("/{id}/events")
    @RolesAllowed({Role.CLIENT_NAME, Role.SUPPORT_NAME, Role.ADMIN_NAME})
    public HistoryView history(@Auth Caller caller, @PathParam("id") String id) {
        MessageDetails m = visible(caller, id);
        // Compaction snapshots are opened back into the events they folded: the answer is the same after compaction.
        boolean staff = caller.role() != Role.CLIENT;
        return new HistoryView(
                m.row().id(),
                History.expand(m.events()).stream()
                        .map(e -> new EventView(
                                e.seq(),
                                e.type().name(),
                                e.at(),
                                ActorNames.shown(e.actor(), caller.role()),
                                ActorNames.shownData(e.type().name(), codec.toNode(e.event()), caller.role())))
                        .toList(),
                // Its status webhook deliveries: their state for the client, each attempt's outcome for support too.
                webhooks.ofMessage(m.row().id()).stream()
                        .map(d -> new WebhookDeliveryView(
                                WebhookDeliveries.Delivery.eventId(m.row().id(), d.seq()),
                                d.seq(),
                                d.status(),
                                WebhookDeliveries.stateName(d.state()),
                                d.attempts(),
                                staff
                                        ? d.attemptLog().stream()
                                                .map(a -> new WebhookDeliveryView.Attempt(
                                                        a.attempt(), a.at(), a.httpStatus(), a.outcome()))
                                                .toList()
                                        : null))
                        .toList());
    }

    @GET
    @RolesAllowed({Role.CLIENT_NAME, Role.SUPPORT_NAME, Role.ADMIN_NAME})
    public SearchPage search(
            @Auth Caller caller,
            @QueryParam("to") String to,
            @QueryParam("reference") String reference,
            @QueryParam("status") String status,
            @QueryParam("since") String since,
            @QueryParam("until") String until,
            @QueryParam("limit") String limit,
            @QueryParam("cursor") String cursor,
            @QueryParam("tenant") String tenant) {
        SearchQuery query = SearchParams.parse(caller, to, reference, status, since, until, limit, cursor, tenant);
        SearchResult page = reader.search(query);
        return new SearchPage(
                page.items().stream().map(m -> MessageView.of(m, lanes)).toList(),
                page.next() == null ? null : page.next().toString());
    }

    /** The message if this caller may see it; another tenant's message is as absent as a missing one. */
    private MessageDetails visible(Caller caller, String id) {
        UUID uuid = MessageIdParam.parse(id);
        return reader.find(uuid)
                .filter(m -> caller.mayRead(m.row().tenant()))
                .orElseThrow(() -> ApiProblem.notFound("no message " + id));
    }
}
