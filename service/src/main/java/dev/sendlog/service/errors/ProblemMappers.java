package dev.sendlog.service.errors;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import dev.sendlog.service.log.SqlFailures;
import io.dropwizard.jersey.setup.JerseyEnvironment;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.jetty.io.EofException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Every error leaves as application/problem+json. Registered instead of Dropwizard's default mappers. */
public final class ProblemMappers {
    private static final Logger LOG = LoggerFactory.getLogger(ProblemMappers.class);

    private ProblemMappers() {}

    public static void register(JerseyEnvironment jersey, MetricRegistry metrics) {
        Counter unexpected = metrics.counter("api.errors.unexpected");
        jersey.register(new ApiProblemMapper());
        jersey.register(new WebApplicationMapper());
        jersey.register(new JsonMapper());
        jersey.register(new UnexpectedMapper(unexpected));
    }

    static Response response(Problem problem) {
        return Response.status(problem.status())
                .type(Problem.MEDIA_TYPE)
                .entity(problem)
                .build();
    }

    /**
     * The answer to an exception that no other mapper knows: 503 with Retry-After when the database is unreachable,
     * otherwise a 500 whose error id is logged with the stack trace and counted in {@code api.errors.unexpected}.
     */
    public static ApiProblem unexpected(Throwable e, Counter unexpected) {
        if (SqlFailures.isUnavailable(e)) {
            LOG.warn("database unavailable for a request: {}", e.toString());
            return ApiProblem.unavailable("the database is unreachable; retry shortly", 1);
        }
        String errorId = UUID.randomUUID().toString();
        unexpected.inc();
        LOG.error("unexpected error error_id={}", errorId, e);
        return new ApiProblem(
                Problem.of(500, "Internal error", "an unexpected error happened; error_id=" + errorId), Map.of());
    }

    /** Whether reading a request body failed because it arrived too slowly (the data rate or the idle timeout). */
    public static boolean bodyTimedOut(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof java.util.concurrent.TimeoutException
                    || (c instanceof org.eclipse.jetty.http.HttpException h && h.getCode() == 408)) {
                return true;
            }
        }
        return false;
    }

    /** 408: the request's body did not arrive in time. */
    public static ApiProblem bodyTimeout() {
        return new ApiProblem(
                Problem.of(408, "Request timeout", "the request body did not arrive in time"),
                Map.of("Connection", "close"));
    }

    static final class ApiProblemMapper implements ExceptionMapper<ApiProblem> {
        @Override
        public Response toResponse(ApiProblem e) {
            return toResponseOf(e);
        }

        static Response toResponseOf(ApiProblem e) {
            Response.ResponseBuilder builder = Response.status(e.problem().status())
                    .type(Problem.MEDIA_TYPE)
                    .entity(e.problem());
            e.headers().forEach(builder::header);
            return builder.build();
        }
    }

    static final class WebApplicationMapper implements ExceptionMapper<WebApplicationException> {
        @Override
        public Response toResponse(WebApplicationException e) {
            Response original = e.getResponse();
            int status = original.getStatus();
            String title = original.getStatusInfo().getReasonPhrase();
            String detail = switch (status) {
                case 401 -> "a valid key is required: Authorization: Bearer <key>";
                case 403 -> "this key's role may not do this";
                case 404 -> "no such resource";
                case 405 -> "method not allowed here";
                case 406 -> "only application/json is produced";
                case 415 -> "the body must be application/json";
                default -> e.getMessage();
            };
            Response.ResponseBuilder builder =
                    Response.status(status).type(Problem.MEDIA_TYPE).entity(Problem.of(status, title, detail));
            original.getHeaders().forEach((name, values) -> {
                if (!name.equalsIgnoreCase("Content-Type")) {
                    values.forEach(v -> builder.header(name, v));
                }
            });
            return builder.build();
        }
    }

    static final class JsonMapper implements ExceptionMapper<JsonProcessingException> {
        @Override
        public Response toResponse(JsonProcessingException e) {
            if (e instanceof UnrecognizedPropertyException unknown) {
                return response(new Problem(
                        Problem.typeFor(400),
                        "Invalid request",
                        400,
                        "unknown field",
                        List.of(new FieldError(unknown.getPropertyName(), "unknown field"))));
            }
            return response(
                    Problem.of(400, "Invalid request", "the body is not valid JSON: " + e.getOriginalMessage()));
        }
    }

    static final class UnexpectedMapper implements ExceptionMapper<Throwable> {
        private final Counter unexpected;

        UnexpectedMapper(Counter unexpected) {
            this.unexpected = unexpected;
        }

        @Override
        public Response toResponse(Throwable e) {
            if (bodyTimedOut(e)) {
                return ApiProblemMapper.toResponseOf(bodyTimeout());
            }
            if (e instanceof EofException) {
                // The client went away mid-request; there is no one left to answer.
                LOG.info("client disconnected: {}", e.toString());
                return Response.status(400).build();
            }
            return ApiProblemMapper.toResponseOf(unexpected(e, unexpected));
        }
    }
}
