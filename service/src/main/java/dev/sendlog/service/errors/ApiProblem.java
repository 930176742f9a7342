package dev.sendlog.service.errors;

import java.util.List;
import java.util.Map;

/** An error answer decided by our code; mapped to problem+json by {@link ProblemMappers}. */
public final class ApiProblem extends RuntimeException {
    private final Problem problem;
    private final Map<String, String> headers;

    public ApiProblem(Problem problem, Map<String, String> headers) {
        super(problem.title() + ": " + problem.detail(), null, false, false);
        this.problem = problem;
        this.headers = Map.copyOf(headers);
    }

    public Problem problem() {
        return problem;
    }

    public Map<String, String> headers() {
        return headers;
    }

    public static ApiProblem badRequest(String detail, List<FieldError> errors) {
        return new ApiProblem(new Problem(Problem.typeFor(400), "Invalid request", 400, detail, errors), Map.of());
    }

    public static ApiProblem notFound(String detail) {
        return new ApiProblem(Problem.of(404, "Not found", detail), Map.of());
    }

    public static ApiProblem conflict(String detail, List<FieldError> errors) {
        return new ApiProblem(new Problem(Problem.typeFor(409), "Conflict", 409, detail, errors), Map.of());
    }

    public static ApiProblem unavailable(String detail, int retryAfterSeconds) {
        return new ApiProblem(
                Problem.of(503, "Service unavailable", detail),
                Map.of("Retry-After", Integer.toString(retryAfterSeconds)));
    }

    public static ApiProblem tooLarge(String detail) {
        return new ApiProblem(Problem.of(413, "Payload too large", detail), Map.of());
    }
}
