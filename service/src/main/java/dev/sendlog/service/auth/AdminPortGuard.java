package dev.sendlog.service.auth;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import dev.sendlog.service.errors.Problem;
import io.dropwizard.auth.AuthenticationException;
import io.dropwizard.auth.Authenticator;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Collection;
import java.util.HashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The admin port's door (API.md, "Admin port"). A browser sends a "simple" cross-origin POST without asking first, and
 * a page whose name was rebound to 127.0.0.1 reaches a port bound there, so: a request with an {@code Origin} header
 * (only browsers send one) or with a Host that is not the admin host is refused with 403, whatever it asks for. Past
 * that, health, readiness, alarms, ping and metrics are open (load balancers and scrapers have no key); everything else
 * (the tasks, which pause components and run maintenance, thread dumps) needs an admin key, taken as the API takes
 * keys.
 */
public final class AdminPortGuard implements Filter {
    /** What a monitor reads; decoded paths, as the servlets are matched. */
    private static final Set<String> OPEN =
            Set.of("/healthcheck", "/ready", "/alarms", "/ping", "/metrics", "/metrics/prometheus");

    private static final Set<String> LOOPBACK = Set.of("localhost", "127.0.0.1", "[::1]");

    private final Set<String> names;
    private final Set<String> namesWithPort;
    private final Authenticator<String, Caller> authenticator;
    private final ObjectWriter problemWriter;
    private final MetricRegistry metrics;

    /**
     * @param bindHosts    the admin connectors' bind hosts (a wildcard such as 0.0.0.0 names no host and is skipped)
     * @param allowedHosts more names from the configuration: a host (alone or with the admin port), or {@code host:port}
     *                     as it is, e.g. behind a port mapping
     */
    public AdminPortGuard(
            Collection<String> bindHosts,
            Collection<String> allowedHosts,
            Authenticator<String, Caller> authenticator,
            ObjectMapper json,
            MetricRegistry metrics) {
        Set<String> hosts = new HashSet<>(LOOPBACK);
        Set<String> withPort = new HashSet<>();
        for (String bind : bindHosts) {
            String host = bind == null || bind.isBlank() ? null : literal(bind);
            if (host != null && !host.equals("0.0.0.0") && !host.equals("[::]")) {
                hosts.add(host);
            }
        }
        for (String allowed : allowedHosts) {
            HostPort parsed = HostPort.parse(literal(allowed));
            if (parsed == null) {
                throw new IllegalArgumentException("adminPort.allowedHosts: not a host name or host:port: " + allowed);
            }
            if (parsed.port() == null) {
                hosts.add(parsed.host());
            } else {
                withPort.add(parsed.host() + ":" + parsed.port());
            }
        }
        this.names = Set.copyOf(hosts);
        this.namesWithPort = Set.copyOf(withPort);
        this.authenticator = authenticator;
        this.problemWriter = json.writerFor(Problem.class);
        this.metrics = metrics;
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest request = (HttpServletRequest) req;
        HttpServletResponse response = (HttpServletResponse) res;
        if (request.getHeader("Origin") != null) {
            refuse(
                    response,
                    "origin",
                    403,
                    "Forbidden",
                    "the admin port does not answer requests made by web pages (Origin)");
            return;
        }
        if (!hostAllowed(request.getHeader("Host"), request.getLocalPort())) {
            refuse(response, "host", 403, "Forbidden", "the admin port answers only to its own host name (Host)");
            return;
        }
        String path = request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
        if (OPEN.contains(path)) {
            chain.doFilter(req, res);
            return;
        }
        String key = BearerHeaderAuthFilter.key(request.getHeader("Authorization"), "Bearer");
        Optional<Caller> caller;
        try {
            caller = key == null ? Optional.empty() : authenticator.authenticate(key);
        } catch (AuthenticationException | RuntimeException e) {
            response.setHeader("Retry-After", "5");
            refuse(response, "unavailable", 503, "Service unavailable", "the keys cannot be checked now; try again");
            return;
        }
        if (caller.isEmpty()) {
            response.setHeader("WWW-Authenticate", "Bearer realm=\"sendlog\"");
            refuse(
                    response,
                    "unauthorized",
                    401,
                    "Unauthorized",
                    "an admin key is required: Authorization: Bearer <key>");
            return;
        }
        if (caller.get().role() != Role.ADMIN) {
            refuse(response, "role", 403, "Forbidden", "only an admin key may use this on the admin port");
            return;
        }
        chain.doFilter(req, res);
    }

    /**
     * The admin host, by name or address, with no port or the port the request came in on; or a configured name. No
     * Host at all is let through: only HTTP/1.0 omits it, and no browser does.
     */
    private boolean hostAllowed(String header, int localPort) {
        if (header == null) {
            return true;
        }
        HostPort h = HostPort.parse(header.trim().toLowerCase(Locale.ROOT));
        if (h == null) {
            return false;
        }
        if (h.port() == null) {
            return names.contains(h.host());
        }
        return (names.contains(h.host()) && h.port() == localPort) || namesWithPort.contains(h.host() + ":" + h.port());
    }

    private void refuse(HttpServletResponse response, String reason, int status, String title, String detail)
            throws IOException {
        metrics.counter("admin.refused." + reason).inc();
        byte[] body = problemWriter.writeValueAsBytes(Problem.of(status, title, detail));
        response.setStatus(status);
        response.setContentType(Problem.MEDIA_TYPE);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    /** A configured name as a Host header carries it: lower case, an IPv6 address in brackets. */
    private static String literal(String configured) {
        String h = configured.trim().toLowerCase(Locale.ROOT);
        return h.indexOf(':') != h.lastIndexOf(':') && !h.startsWith("[") ? "[" + h + "]" : h;
    }

    /** A Host header's name and optional port (RFC 9110: {@code uri-host [ ":" port ]}). */
    private record HostPort(String host, Integer port) {
        static HostPort parse(String value) {
            String host;
            String rest;
            if (value.startsWith("[")) {
                int close = value.indexOf(']');
                if (close < 0) {
                    return null;
                }
                host = value.substring(0, close + 1);
                rest = value.substring(close + 1);
            } else {
                int colon = value.indexOf(':');
                host = colon < 0 ? value : value.substring(0, colon);
                rest = colon < 0 ? "" : value.substring(colon);
            }
            if (host.isEmpty() || host.equals("[]")) {
                return null;
            }
            if (rest.isEmpty()) {
                return new HostPort(host, null);
            }
            if (!rest.matches(":[0-9]{1,5}")) {
                return null;
            }
            return new HostPort(host, Integer.parseInt(rest.substring(1)));
        }
    }
}
