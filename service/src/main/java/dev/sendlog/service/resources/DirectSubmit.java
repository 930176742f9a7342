package dev.sendlog.service.resources;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import dev.sendlog.service.accept.AcceptService;
import dev.sendlog.service.accept.AcceptedItem;
import dev.sendlog.service.accept.MessageDraft;
import dev.sendlog.service.api.BatchResponse;
import dev.sendlog.service.api.SubmitParser;
import dev.sendlog.service.api.SubmitResponse;
import dev.sendlog.service.auth.Caller;
import dev.sendlog.service.auth.Role;
import dev.sendlog.service.errors.ApiProblem;
import io.dropwizard.auth.AuthenticationException;
import io.dropwizard.auth.Authenticator;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code POST /v1/messages} and {@code /v1/messages/batch}, the ordinary requests, answered ahead of Jersey
 * ({@link DirectPath}). It takes a body declared {@code application/json} (at most a charset=utf-8 parameter), a
 * Bearer key that authenticates as a client, and a body the {@link SubmitParser} accepts; anything else (400, 401,
 * 403, 406, 413, 415 and their kin) is {@link MessagesResource}'s to answer, as is a batch that carries an
 * Idempotency-Key header. Once the submission is handed to the accept path the answer is this filter's: 202 as the
 * resource builds it (for one message, Location under {@code publicBaseUrl} and {@code Idempotent-Replayed} on a
 * replay; for a batch, one result
 * per message in order), or the problem the accept path raised (409, 503), rendered as the resource's mappers do.
 */
public final class DirectSubmit extends DirectPath {
    public static final String PATH = "/v1/messages";
    public static final String BATCH_PATH = "/v1/messages/batch";

    private final Authenticator<String, Caller> authenticator;
    private final SubmitParser parser;
    private final AcceptService accept;
    private final ObjectWriter responseWriter;
    private final ObjectWriter batchWriter;
    private final String locationPrefix;

    /** @param publicBaseUrl where clients reach the API: the base of every {@code Location}, never the request's Host */
    public DirectSubmit(
            Authenticator<String, Caller> authenticator,
            SubmitParser parser,
            AcceptService accept,
            long maxBodyBytes,
            ObjectMapper json,
            String publicBaseUrl,
            MetricRegistry metrics) {
        super("api.submit", maxBodyBytes, json, metrics);
        this.locationPrefix = MessagesResource.locationPrefix(publicBaseUrl);
        this.authenticator = authenticator;
        this.parser = parser;
        this.accept = accept;
        this.responseWriter = json.writerFor(SubmitResponse.class);
        this.batchWriter = json.writerFor(BatchResponse.class);
    }

    /**
     * The path, the type and then the key, all before the body is read: a request no client key authenticates goes on
     * unread, and Jersey refuses it (401, 403) without waiting for its body. The caller is left on the request.
     */
    @Override
    boolean wants(HttpServletRequest request) {
        String uri = request.getRequestURI();
        if (!(PATH.equals(uri) || BATCH_PATH.equals(uri)) || !plainJson(request.getHeader("Content-Type"))) {
            return false;
        }
        Caller caller = client(request.getHeader("Authorization"));
        if (caller == null) {
            return false;
        }
        request.setAttribute(Caller.REQUEST_ATTRIBUTE, caller);
        return true;
    }

    @Override
    boolean handle(HttpServletRequest request, byte[] body, HttpServletResponse response) throws IOException {
        Caller caller = (Caller) request.getAttribute(Caller.REQUEST_ATTRIBUTE);
        boolean batch = BATCH_PATH.equals(request.getRequestURI());
        String idempotencyKey = request.getHeader("Idempotency-Key");
        List<MessageDraft> drafts = batch && idempotencyKey != null ? null : parse(body, batch, idempotencyKey);
        if (drafts == null) {
            return false;
        }
        List<AcceptedItem> items;
        try {
            items = accept.submit(caller.tenant(), drafts, batch);
        } catch (RuntimeException e) {
            unexpected(response, e);
            return true;
        }
        if (batch) {
            answer(
                    response,
                    HttpServletResponse.SC_ACCEPTED,
                    "application/json",
                    batchWriter.writeValueAsBytes(new BatchResponse(items.stream()
                            .map(i -> new SubmitResponse(i.id(), "ACCEPTED", i.acceptedAt()))
                            .toList())));
            return true;
        }
        AcceptedItem item = items.getFirst();
        response.setHeader("Location", locationPrefix + item.id());
        if (item.replayed()) {
            response.setHeader("Idempotent-Replayed", "true");
        }
        answer(
                response,
                HttpServletResponse.SC_ACCEPTED,
                "application/json",
                responseWriter.writeValueAsBytes(new SubmitResponse(item.id(), "ACCEPTED", item.acceptedAt())));
        return true;
    }

    /** The raw header, not the parsed one: a charset Jetty cannot load makes its parsed Content-Type throw. */
    static boolean plainJson(String contentType) {
        if (contentType == null) {
            return false;
        }
        String type = contentType.toLowerCase(Locale.ROOT).replace(" ", "");
        return type.equals("application/json") || type.equals("application/json;charset=utf-8");
    }

    /** The caller behind a {@code Bearer} key with the client role, or null to let Jersey answer. */
    private Caller client(String authorization) {
        if (authorization == null || !authorization.startsWith("Bearer ") || authorization.length() == 7) {
            return null;
        }
        try {
            Optional<Caller> caller = authenticator.authenticate(authorization.substring(7));
            return caller.filter(c -> c.role() == Role.CLIENT).orElse(null);
        } catch (AuthenticationException | RuntimeException e) {
            return null; // the key store unreachable, say: Jersey's auth filter meets the same and answers for it
        }
    }

    /** The submissions, or null when the body is not one the parser takes (Jersey then says why). */
    private List<MessageDraft> parse(byte[] body, boolean batch, String idempotencyKey) {
        try {
            JsonNode node = SubmitParser.read(body);
            if (node == null || !node.isObject()) {
                return null;
            }
            return batch ? parser.batch(node) : List.of(parser.single(node, idempotencyKey));
        } catch (IOException | ApiProblem e) {
            return null;
        }
    }
}
