package dev.sendlog.service.resources;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sendlog.service.config.GatewaySettings;
import dev.sendlog.service.errors.ApiProblem;
import dev.sendlog.service.receipts.CallbackSignature;
import dev.sendlog.service.receipts.Inbox;
import dev.sendlog.service.receipts.IntakeBound;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * {@code POST /v1/callbacks/{gateway}}, the ordinary receipt, answered ahead of Jersey ({@link DirectPath}): a known
 * gateway, no Content-Type or plain JSON, a well-formed X-Signature (checked before the body is read) and a body whose
 * signature matches. It is stored exactly as
 * {@link CallbackResource} stores it, under the same intake bound, and answered 200 {@code {"stored": id}} only after
 * the commit; an intake still full after {@code receipts.intakeWait}, or a store that fails, answers 503 with
 * Retry-After as the resource does. A bad or missing signature, an unknown gateway or anything unusual goes on to the
 * resource, which counts, logs and refuses it.
 */
public final class DirectCallback extends DirectPath {
    public static final String PATH_PREFIX = "/v1/callbacks/";

    private final Map<String, GatewaySettings> gateways;
    private final Inbox inbox;
    private final IntakeBound intake;
    private final Counter refused;

    /** {@code intake} is the resource's own bound, shared so that both paths together stay within it. */
    public DirectCallback(
            Map<String, GatewaySettings> gateways,
            Inbox inbox,
            IntakeBound intake,
            long maxBodyBytes,
            ObjectMapper json,
            MetricRegistry metrics) {
        super("callbacks.intake", maxBodyBytes, json, metrics);
        this.gateways = Map.copyOf(gateways);
        this.inbox = inbox;
        this.intake = intake;
        this.refused = metrics.counter("callbacks.intake.busy");
    }

    @Override
    boolean wants(HttpServletRequest request) {
        String uri = request.getRequestURI();
        return uri.startsWith(PATH_PREFIX)
                && gateways.containsKey(uri.substring(PATH_PREFIX.length()))
                && CallbackSignature.wellFormed(request.getHeader("X-Signature"))
                && simpleType(request.getHeader("Content-Type"));
    }

    /** No Content-Type, or plain JSON: the resource takes any type, but the odd ones are its to judge. */
    private static boolean simpleType(String contentType) {
        return contentType == null || DirectSubmit.plainJson(contentType);
    }

    @Override
    boolean handle(HttpServletRequest request, byte[] body, HttpServletResponse response) throws IOException {
        String gateway = request.getRequestURI().substring(PATH_PREFIX.length());
        if (!CallbackSignature.verify(gateways.get(gateway).callbackSecret, body, request.getHeader("X-Signature"))) {
            return false;
        }
        if (!intake.enter()) {
            refused.inc();
            problem(response, ApiProblem.unavailable("too many callbacks at once; send it again shortly", 1));
            return true;
        }
        Inbox.Stored stored;
        try {
            stored = inbox.store(gateway, body);
        } catch (Inbox.NotStored e) {
            problem(response, ApiProblem.unavailable("the callback could not be stored; send it again", 1));
            return true;
        } catch (Exception e) {
            unexpected(response, e);
            return true;
        } finally {
            intake.leave();
        }
        answer(
                response,
                HttpServletResponse.SC_OK,
                "application/json",
                ("{\"stored\":" + stored.id() + (stored.replayed() ? ",\"replayed\":true}" : "}"))
                        .getBytes(StandardCharsets.US_ASCII));
        return true;
    }
}
