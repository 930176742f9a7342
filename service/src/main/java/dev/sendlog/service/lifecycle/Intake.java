package dev.sendlog.service.lifecycle;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import dev.sendlog.service.errors.Problem;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Whether this process takes new requests. Open from the start; closed for good when it begins to shut down, so a
 * load balancer sees {@code GET /ready} on the admin port fail and a client that still reaches the process is told to
 * come back ({@code 503} with {@code Retry-After}) while the requests it had already accepted finish.
 */
public final class Intake {
    /** Seconds a refused client waits: by then another process has taken this one's place (its shards move at once). */
    static final int RETRY_AFTER_SECONDS = 2;

    private volatile boolean open = true;

    public boolean isOpen() {
        return open;
    }

    void close() {
        open = false;
    }

    /** The application port's first filter: refuses every new request once intake is closed. */
    public Filter filter(ObjectMapper json) {
        ObjectWriter problems = json.writerFor(Problem.class);
        byte[] body;
        try {
            body = problems.writeValueAsBytes(Problem.of(
                    503,
                    "Service unavailable",
                    "this process is shutting down; send the request again (to another process)"));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return new Filter() {
            @Override
            public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
                    throws IOException, ServletException {
                if (open) {
                    chain.doFilter(req, res);
                    return;
                }
                HttpServletResponse response = (HttpServletResponse) res;
                response.setStatus(503);
                response.setHeader("Retry-After", Integer.toString(RETRY_AFTER_SECONDS));
                // The connection is not kept for another request: the next one should go to a process that takes it.
                response.setHeader("Connection", "close");
                response.setContentType(Problem.MEDIA_TYPE);
                response.setContentLength(body.length);
                response.getOutputStream().write(body);
            }
        };
    }

    /** {@code GET /ready} on the admin port: 200 while intake is open, 503 from the moment shutdown begins. */
    public HttpServlet readiness() {
        return new HttpServlet() {
            @Override
            protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                resp.setStatus(open ? 200 : 503);
                resp.setContentType("text/plain");
                resp.getOutputStream().write((open ? "ready\n" : "draining\n").getBytes(StandardCharsets.US_ASCII));
            }
        };
    }
}
