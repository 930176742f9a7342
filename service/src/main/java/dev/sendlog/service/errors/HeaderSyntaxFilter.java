package dev.sendlog.service.errors;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Treats an Accept or Content-Type header that does not parse (including a quality value such as {@code q=x}) as
 * absent. Left to Jersey, such a header fails request matching and then the writing of the error answer too, so the
 * client got an empty 400 or a 500. Without it, a JSON endpoint answers 415 as for any body that is not declared
 * JSON, and a signed provider callback is still stored. (A Content-Type without a subtype never gets here: Jersey
 * refuses it with a 400 before any filter runs.)
 */
@PreMatching
@Priority(Priorities.AUTHENTICATION - 200)
public final class HeaderSyntaxFilter implements ContainerRequestFilter {
    /** The quality values Jersey reads (RFC 9110 qvalue). */
    private static final Pattern QUALITY = Pattern.compile("0(\\.[0-9]{0,3})?|1(\\.0{0,3})?");

    @Override
    public void filter(ContainerRequestContext request) {
        if (!acceptParses(request)) {
            request.getHeaders().remove(HttpHeaders.ACCEPT);
        }
        if (!contentTypeParses(request)) {
            request.getHeaders().remove(HttpHeaders.CONTENT_TYPE);
        }
    }

    private static boolean acceptParses(ContainerRequestContext request) {
        try {
            return request.getAcceptableMediaTypes().stream().allMatch(HeaderSyntaxFilter::qualityParses);
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static boolean contentTypeParses(ContainerRequestContext request) {
        try {
            MediaType type = request.getMediaType();
            return type == null || qualityParses(type);
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static boolean qualityParses(MediaType type) {
        for (Map.Entry<String, String> p : type.getParameters().entrySet()) {
            if (p.getKey().equalsIgnoreCase("q")
                    && (p.getValue() == null || !QUALITY.matcher(p.getValue()).matches())) {
                return false;
            }
        }
        return true;
    }
}
