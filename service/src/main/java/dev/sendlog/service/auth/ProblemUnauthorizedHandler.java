package dev.sendlog.service.auth;

import dev.sendlog.service.errors.Problem;
import io.dropwizard.auth.UnauthorizedHandler;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;

/** A missing or wrong key answers 401 as problem+json, with the challenge header. */
public final class ProblemUnauthorizedHandler implements UnauthorizedHandler {
    @Override
    public Response buildResponse(String prefix, String realm) {
        return Response.status(401)
                .header(HttpHeaders.WWW_AUTHENTICATE, prefix + " realm=\"" + realm + "\"")
                .type(Problem.MEDIA_TYPE)
                .entity(Problem.of(401, "Unauthorized", "a valid key is required: Authorization: Bearer <key>"))
                .build();
    }
}
