package dev.sendlog.service.errors;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sendlog.events.JsonMappers;
import io.dropwizard.core.setup.Environment;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.component.LifeCycle;

/**
 * The answers Jetty gives itself, as problem+json like every other error: a request it cannot parse (an illegal
 * character, two Content-Lengths, a bad path), headers or URI too large (431, 414), a method the servlet refuses
 * (405), a failure outside Jersey (500). Jetty's default writes an HTML page, and for methods other than GET and
 * POST no body at all. A 5xx says nothing about its cause.
 */
public final class ProblemErrorHandler extends ErrorHandler {
    private static final ObjectMapper JSON = JsonMappers.pooled();
    private static final HttpField CONTENT_TYPE = new HttpField(HttpHeader.CONTENT_TYPE, Problem.MEDIA_TYPE);

    /** Serves Jetty's own errors on the server (unparseable requests) and in the application context (sendError). */
    public static void install(Environment env) {
        ProblemErrorHandler handler = new ProblemErrorHandler();
        env.getApplicationContext().setErrorHandler(handler);
        env.lifecycle().addEventListener(new LifeCycle.Listener() {
            @Override
            public void lifeCycleStarting(LifeCycle event) {
                if (event instanceof Server server) {
                    server.setErrorHandler(handler);
                }
            }
        });
    }

    @Override
    public boolean errorPageForMethod(String method) {
        return true;
    }

    @Override
    protected void generateResponse(
            Request request, Response response, int code, String message, Throwable cause, Callback callback) {
        response.getHeaders().put(CONTENT_TYPE);
        response.write(true, ByteBuffer.wrap(body(code, message)), callback);
    }

    @Override
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
        fields.put(CONTENT_TYPE);
        return ByteBuffer.wrap(body(status, reason));
    }

    private static byte[] body(int status, String message) {
        String detail = status >= 500 || message == null ? "the request could not be handled" : message;
        try {
            return JSON.writeValueAsBytes(Problem.of(status, HttpStatus.getMessage(status), detail));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a problem is always serializable", e);
        }
    }
}
