package dev.sendlog.service.http;

import dev.sendlog.service.auth.Caller;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One line per request of the application port, on the logger {@code dev.sendlog.access}: method, path and query,
 * status, time, and who asked, by the key's name, tenant and role (never the key itself; the key is only ever taken
 * from the Authorization header, which is not logged). A support key reading another tenant's messages leaves its
 * name here with the tenant it asked for. Who asked is what the authentication recorded on the request
 * ({@link Caller#REQUEST_ATTRIBUTE}); a request no key authenticated shows {@code -}.
 *
 * <p>A servlet filter rather than Dropwizard's request log, because the request log sees the request before Jersey
 * authenticates it and cannot name the caller. Set {@code dev.sendlog.access: WARN} in {@code logging.loggers} to
 * turn it off.
 */
public final class AccessLog implements Filter {
    public static final String LOGGER = "dev.sendlog.access";
    private static final Logger LOG = LoggerFactory.getLogger(LOGGER);
    private static final int MAX_TARGET = 1000;

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        if (!LOG.isInfoEnabled()) {
            chain.doFilter(req, res);
            return;
        }
        HttpServletRequest request = (HttpServletRequest) req;
        long start = System.nanoTime();
        int status = 500;
        try {
            chain.doFilter(req, res);
            status = ((HttpServletResponse) res).getStatus();
        } finally {
            long ms = (System.nanoTime() - start) / 1_000_000;
            Caller caller = request.getAttribute(Caller.REQUEST_ATTRIBUTE) instanceof Caller c ? c : null;
            LOG.info(
                    "{} {} status={} ms={} key={} tenant={} role={} remote={}",
                    request.getMethod(),
                    target(request),
                    status,
                    ms,
                    caller == null ? "-" : caller.keyName(),
                    caller == null ? "-" : caller.tenant(),
                    caller == null ? "-" : caller.role().name().toLowerCase(java.util.Locale.ROOT),
                    request.getRemoteAddr());
        }
    }

    /** The path and query as sent (still percent-encoded, so no line break gets in), clipped. */
    private static String target(HttpServletRequest request) {
        String query = request.getQueryString();
        String target = query == null ? request.getRequestURI() : request.getRequestURI() + "?" + query;
        return target.length() > MAX_TARGET ? target.substring(0, MAX_TARGET) + "..." : target;
    }
}
