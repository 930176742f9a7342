package dev.sendlog.service.tasks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import dev.sendlog.service.errors.Problem;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Checks a component task's {@code ?component=} before Dropwizard's task servlet runs it: that servlet answers every
 * exception a task throws with 500, which would say the fault is ours when the caller named a component that does not
 * run here. A refusal is a 400 problem+json naming the components that do.
 */
public final class TaskArguments implements Filter {
    private final Map<String, ComponentTask> byPath = new HashMap<>();
    private final ObjectWriter problemWriter;

    public TaskArguments(List<ComponentTask> tasks, ObjectMapper json) {
        tasks.forEach(t -> byPath.put("/" + t.getName(), t));
        this.problemWriter = json.writerFor(Problem.class);
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest request = (HttpServletRequest) req;
        ComponentTask task = "POST".equals(request.getMethod()) && request.getPathInfo() != null
                ? byPath.get(request.getPathInfo())
                : null;
        if (task == null) {
            chain.doFilter(req, res);
            return;
        }
        Map<String, List<String>> parameters = new HashMap<>();
        request.getParameterMap().forEach((k, v) -> parameters.put(k, Arrays.asList(v)));
        Optional<String> refusal = task.refusal(parameters);
        if (refusal.isEmpty()) {
            chain.doFilter(req, res);
            return;
        }
        HttpServletResponse response = (HttpServletResponse) res;
        byte[] body = problemWriter.writeValueAsBytes(Problem.of(400, "Invalid request", refusal.get()));
        response.setStatus(400);
        response.setContentType(Problem.MEDIA_TYPE);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }
}
