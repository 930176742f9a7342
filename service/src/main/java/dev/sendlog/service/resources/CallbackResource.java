package dev.sendlog.service.resources;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import dev.sendlog.service.config.GatewaySettings;
import dev.sendlog.service.errors.ApiProblem;
import dev.sendlog.service.errors.Problem;
import dev.sendlog.service.logging.SampledLog;
import dev.sendlog.service.receipts.CallbackSignature;
import dev.sendlog.service.receipts.Inbox;
import dev.sendlog.service.receipts.IntakeBound;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.InputStream;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /v1/callbacks/{gateway}}: a provider's receipt. The signature is checked first (401, nothing
 * stored, counted); then the raw body is stored, whatever it holds, and only then answered 200. Processing
 * is asynchronous. A body that is not even JSON is stored too, and parked by the callback worker.
 */
@Path("/v1/callbacks/{gateway}")
public final class CallbackResource {
    private static final Logger LOG = LoggerFactory.getLogger(CallbackResource.class);

    private final Map<String, GatewaySettings> gateways;
    private final Inbox inbox;
    private final Counter rejectedSignatures;
    private final Counter refused;
    private final IntakeBound intake;

    /** Anyone can send unsigned callbacks: each is counted, and a line is written at most this often. */
    static final Duration REFUSAL_LOG_EVERY = Duration.ofSeconds(10);

    private final SampledLog refusalLog;

    /** {@code intake} bounds the callbacks being stored at once, shared with {@link DirectCallback}. */
    public CallbackResource(
            Map<String, GatewaySettings> gateways,
            Inbox inbox,
            IntakeBound intake,
            InstantSource clock,
            MetricRegistry metrics) {
        this.refusalLog = new SampledLog(LOG, clock, REFUSAL_LOG_EVERY);
        this.gateways = Map.copyOf(gateways);
        this.inbox = inbox;
        this.intake = intake;
        this.rejectedSignatures = metrics.counter("callbacks.signature.rejected");
        this.refused = metrics.counter("callbacks.intake.busy");
    }

    @POST
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public Response receive(
            @PathParam("gateway") String gateway, @HeaderParam("X-Signature") String signature, InputStream body)
            throws Exception {
        GatewaySettings settings = gateways.get(gateway);
        if (settings == null) {
            throw ApiProblem.notFound("no gateway " + gateway);
        }
        // A header without the signature's shape is refused before the body is read: a client that sends it and then
        // its body slowly, or never, gets its 401 at once and holds nothing.
        byte[] raw = CallbackSignature.wellFormed(signature) && body != null ? body.readAllBytes() : new byte[0];
        if (!CallbackSignature.verify(settings.callbackSecret, raw, signature)) {
            rejectedSignatures.inc();
            refusalLog.warn(
                    "callback refused: bad or missing signature gateway={} bytes={} refused_total={}",
                    gateway,
                    raw.length,
                    rejectedSignatures.getCount());
            return Response.status(401)
                    .type(Problem.MEDIA_TYPE)
                    .entity(Problem.of(401, "Unauthorized", "X-Signature is missing or does not match the body"))
                    .build();
        }
        if (!intake.enter()) {
            refused.inc();
            throw ApiProblem.unavailable("too many callbacks at once; send it again shortly", 1);
        }
        Inbox.Stored stored;
        try {
            stored = inbox.store(gateway, raw);
        } catch (Inbox.NotStored e) {
            throw ApiProblem.unavailable("the callback could not be stored; send it again", 1);
        } finally {
            intake.leave();
        }
        // A body already stored (the provider sent it again) is answered with the row that holds it, and not stored
        // twice.
        return Response.ok(
                        stored.replayed()
                                ? Map.of("stored", stored.id(), "replayed", true)
                                : Map.of("stored", stored.id()))
                .build();
    }
}
