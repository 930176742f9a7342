package dev.sendlog.service.auth;

import io.dropwizard.auth.Authorizer;
import jakarta.ws.rs.container.ContainerRequestContext;

/** {@code @RolesAllowed} check: admin may do what support may; each role only its own otherwise. */
public final class CallerAuthorizer implements Authorizer<Caller> {
    @Override
    public boolean authorize(Caller caller, String role, ContainerRequestContext context) {
        Role required = Role.parse(role);
        return caller.role() == required || (caller.role() == Role.ADMIN && required == Role.SUPPORT);
    }
}
