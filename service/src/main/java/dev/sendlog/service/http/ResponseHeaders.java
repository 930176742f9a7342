package dev.sendlog.service.http;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Headers every answer of the application port carries, set before anything else writes: no page of another origin
 * may frame ours ({@code X-Frame-Options: DENY} and CSP {@code frame-ancestors 'none'}; a {@code <meta>} CSP cannot say
 * {@code frame-ancestors}, so the console's policy is sent as a header too), and no browser guesses a type other than
 * the one declared ({@code X-Content-Type-Options: nosniff}). The console's pages get its full policy; API answers,
 * which are never documents, a policy that allows nothing.
 */
public final class ResponseHeaders implements Filter {
    /** The console's policy: its own scripts, styles and API calls only (the same as its {@code <meta>} tag), unframed. */
    public static final String CONSOLE_POLICY =
            "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
                    + "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
    /** Everything else: JSON, which must not be rendered, run or framed. */
    public static final String API_POLICY = "default-src 'none'; frame-ancestors 'none'";

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        HttpServletResponse response = (HttpServletResponse) res;
        String uri = ((HttpServletRequest) req).getRequestURI();
        boolean console = uri != null && (uri.equals("/console") || uri.startsWith("/console/"));
        response.setHeader("X-Content-Type-Options", "nosniff");
        response.setHeader("X-Frame-Options", "DENY");
        response.setHeader("Content-Security-Policy", console ? CONSOLE_POLICY : API_POLICY);
        response.setHeader("Referrer-Policy", "no-referrer");
        chain.doFilter(req, res);
    }
}
