package dev.sendlog.service.auth;

import io.dropwizard.auth.AuthFilter;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.SecurityContext;
import java.security.Principal;

/**
 * {@code Authorization: Bearer <key>}, and nothing else. Dropwizard's OAuth filter also takes the key from an
 * {@code access_token} query parameter, which API.md does not offer and which puts keys into request logs, proxy
 * logs and browser history.
 */
@Priority(Priorities.AUTHENTICATION)
public final class BearerHeaderAuthFilter<P extends Principal> extends AuthFilter<String, P> {
    private BearerHeaderAuthFilter() {}

    @Override
    public void filter(ContainerRequestContext request) {
        if (!authenticate(
                request, key(request.getHeaders().getFirst(HttpHeaders.AUTHORIZATION)), SecurityContext.BASIC_AUTH)) {
            throw unauthorizedHandler.buildException(prefix, realm);
        }
        // Jersey keeps request properties as the servlet request's attributes: the access log names the caller.
        request.setProperty(
                Caller.REQUEST_ATTRIBUTE, request.getSecurityContext().getUserPrincipal());
    }

    private String key(String header) {
        return key(header, prefix);
    }

    /**
     * The key after the scheme, when the scheme is {@code scheme}; null otherwise (which authenticates no one). Also the
     * admin port's reading of the header ({@link AdminPortGuard}), so both ports take a key the same way.
     */
    public static String key(String header, String scheme) {
        if (header == null) {
            return null;
        }
        int space = header.indexOf(' ');
        if (space <= 0 || !header.substring(0, space).equalsIgnoreCase(scheme)) {
            return null;
        }
        return header.substring(space + 1);
    }

    public static final class Builder<P extends Principal>
            extends AuthFilterBuilder<String, P, BearerHeaderAuthFilter<P>> {
        @Override
        protected BearerHeaderAuthFilter<P> newInstance() {
            return new BearerHeaderAuthFilter<>();
        }
    }
}
