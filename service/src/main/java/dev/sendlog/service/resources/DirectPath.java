package dev.sendlog.service.resources;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import dev.sendlog.service.errors.ApiProblem;
import dev.sendlog.service.errors.Problem;
import dev.sendlog.service.errors.ProblemMappers;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Locale;
import java.util.Map;

/**
 * A servlet filter ahead of Jersey that answers the ordinary request of one hot endpoint itself, without Jersey's
 * per-request machinery (routing, provider lookups, filter and interceptor chains), which costs several times the
 * endpoint's own work. It takes only requests it can answer exactly as the Jersey resource would, and hands every
 * other one on untouched (a body it has read is replayed), so each refusal still comes from the one place that
 * defines it. The meters {@code <name>.direct} and {@code <name>.passed-on} count which path answered.
 */
abstract class DirectPath implements Filter {
    private final long maxBodyBytes;
    private final ObjectWriter problemWriter;
    private final Meter direct;
    private final Meter passedOn;
    private final Counter unexpected;

    DirectPath(String name, long maxBodyBytes, ObjectMapper json, MetricRegistry metrics) {
        this.maxBodyBytes = maxBodyBytes;
        this.problemWriter = json.writerFor(Problem.class);
        this.direct = metrics.meter(name + ".direct");
        this.passedOn = metrics.meter(name + ".passed-on");
        this.unexpected = metrics.counter("api.errors.unexpected");
    }

    @Override
    public final void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest request = (HttpServletRequest) req;
        long length = request.getContentLengthLong();
        if (!"POST".equals(request.getMethod())
                || length <= 0
                || length > maxBodyBytes
                || !acceptsJson(request.getHeader("Accept"))
                || !wants(request)) {
            passOn(request, res, chain);
            return;
        }
        byte[] body;
        try {
            body = request.getInputStream().readNBytes((int) length);
        } catch (IOException | RuntimeException e) {
            // Seldom here: EagerBody has the body in memory before the request gets this far, and answers a slow one.
            if (!ProblemMappers.bodyTimedOut(e)) {
                throw e; // the client went away: no one to answer
            }
            problem((HttpServletResponse) res, ProblemMappers.bodyTimeout());
            return;
        }
        if (body.length != length || !handle(request, body, (HttpServletResponse) res)) {
            passOn(new Replayed(request, body), res, chain);
            return;
        }
        direct.mark();
    }

    /** Whether this request is one to try, judged by its method-independent headers and path, before the body is read. */
    abstract boolean wants(HttpServletRequest request);

    /** Answers the request, or returns false, having written nothing, to hand it to Jersey with its body. */
    abstract boolean handle(HttpServletRequest request, byte[] body, HttpServletResponse response) throws IOException;

    private void passOn(HttpServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        passedOn.mark();
        chain.doFilter(request, response);
    }

    /** An Accept header that is absent or plainly admits JSON; anything subtler is Jersey's to negotiate. */
    static boolean acceptsJson(String accept) {
        if (accept == null) {
            return true;
        }
        String value = accept.toLowerCase(Locale.ROOT).trim();
        return value.equals("*/*") || value.equals("application/json") || value.equals("application/*");
    }

    static void answer(HttpServletResponse response, int status, String contentType, byte[] body) throws IOException {
        response.setStatus(status);
        response.setContentType(contentType);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    /** The problem as the resource's exception mappers render it. */
    void problem(HttpServletResponse response, ApiProblem e) throws IOException {
        for (Map.Entry<String, String> header : e.headers().entrySet()) {
            response.setHeader(header.getKey(), header.getValue());
        }
        answer(response, e.problem().status(), Problem.MEDIA_TYPE, problemWriter.writeValueAsBytes(e.problem()));
    }

    /** What the resource's mappers answer for an exception they do not know: 503 if the database is away, else 500. */
    void unexpected(HttpServletResponse response, Exception e) throws IOException {
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        problem(response, e instanceof ApiProblem p ? p : ProblemMappers.unexpected(e, unexpected));
    }

    /** The request with its body, already read, to be read again. */
    private static final class Replayed extends HttpServletRequestWrapper {
        private final byte[] body;

        Replayed(HttpServletRequest request, byte[] body) {
            super(request);
            this.body = body;
        }

        @Override
        public ServletInputStream getInputStream() {
            ByteArrayInputStream in = new ByteArrayInputStream(body);
            return new ServletInputStream() {
                @Override
                public int read() {
                    return in.read();
                }

                @Override
                public int read(byte[] b, int off, int len) {
                    return in.read(b, off, len);
                }

                @Override
                public boolean isFinished() {
                    return in.available() == 0;
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setReadListener(ReadListener listener) {
                    throw new IllegalStateException("the replayed body is read synchronously");
                }
            };
        }
    }
}
