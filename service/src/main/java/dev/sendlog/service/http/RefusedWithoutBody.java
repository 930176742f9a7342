package dev.sendlog.service.http;

import dev.sendlog.service.auth.BearerHeaderAuthFilter;
import dev.sendlog.service.auth.Caller;
import dev.sendlog.service.receipts.CallbackSignature;
import io.dropwizard.auth.Authenticator;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;

/**
 * The requests the application refuses without reading their body, judged from the path and headers alone, so that
 * {@link EagerBody} hands them on at once instead of waiting for a body no one will read: a provider callback to an
 * unknown gateway or without a well-formed {@code X-Signature} (404, 401), and any other {@code /v1/} request without
 * a {@code Bearer} key or with one that authenticates no one (401). A key that cannot be checked now (the key store
 * unreachable) is not judged here: the request's body is received as usual, and the application answers it.
 */
public final class RefusedWithoutBody implements Predicate<Request> {
    private static final String CALLBACKS = "/v1/callbacks/";

    private final Set<String> gateways;
    private final Authenticator<String, Caller> authenticator;

    public RefusedWithoutBody(Set<String> gateways, Authenticator<String, Caller> authenticator) {
        this.gateways = Set.copyOf(gateways);
        this.authenticator = authenticator;
    }

    @Override
    public boolean test(Request request) {
        String path = request.getHttpURI().getPath();
        if (path == null || !path.startsWith("/v1/")) {
            return false;
        }
        if (path.startsWith(CALLBACKS)) {
            return !gateways.contains(path.substring(CALLBACKS.length()))
                    || !CallbackSignature.wellFormed(request.getHeaders().get("X-Signature"));
        }
        String key = BearerHeaderAuthFilter.key(request.getHeaders().get(HttpHeader.AUTHORIZATION), "Bearer");
        if (key == null || key.isEmpty()) {
            return true;
        }
        try {
            Optional<Caller> caller = authenticator.authenticate(key);
            return caller.isEmpty();
        } catch (Exception e) {
            return false;
        }
    }
}
