package dev.sendlog.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.DataSize;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.NotNull;

/**
 * Slow clients on the application port ({@code EagerBody}): a request's body is received before a request thread
 * takes the request, and must keep up with {@code minBodyBytesPerSecond}, counted from the request's start after
 * {@code bodyGrace}; a body that falls behind (or stops for the connector's idleTimeout) is answered 408.
 *
 * <p>Not the connector's own {@code minRequestDataPerSecond}: Jetty checks that in the servlet's reads, counted from
 * the first byte read and without grace, so a small body read across a short pause (a GC, a busy machine) was refused
 * 408 although it had long arrived (a 40-byte body allows 39 ms at 1 KiB/s).
 *
 * <p>And how the application port is left at shutdown ({@code readinessDrain}).
 */
public class HttpSettings {
    /** 0 for no rate (then only the connector's idleTimeout ends a stalled body). */
    @NotNull
    @JsonProperty
    public DataSize minBodyBytesPerSecond = DataSize.kibibytes(1);

    @NotNull
    @JsonProperty
    public Duration bodyGrace = Duration.seconds(5);

    /**
     * After SIGTERM, how long {@code GET /ready} answers 503 (and API requests 503 with Retry-After) before the server
     * stops listening, counted from the moment intake closed and running alongside the hand-over: a load balancer that
     * polls /ready every second or two sees the process leave before its port closes, so clients meet a 503 that says
     * come back rather than a refused connection. 0: the port closes as soon as the work is handed over.
     */
    @NotNull
    @JsonProperty
    public Duration readinessDrain = Duration.seconds(2);
}
