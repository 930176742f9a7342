package dev.sendlog.service.errors;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Refuses bodies over the limit with 413: by Content-Length before reading, and while reading for
 * bodies sent without one (chunked).
 */
@PreMatching
@Priority(Priorities.AUTHENTICATION - 100)
public final class BodyLimitFilter implements ContainerRequestFilter {
    private final long maxBytes;

    public BodyLimitFilter(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        if (request.getLength() > maxBytes) {
            throw tooLarge();
        }
        request.setEntityStream(new Limited(request.getEntityStream(), maxBytes));
    }

    private ApiProblem tooLarge() {
        return ApiProblem.tooLarge("the body is larger than " + maxBytes + " bytes");
    }

    private final class Limited extends FilterInputStream {
        private long remaining;

        Limited(InputStream in, long maxBytes) {
            super(in);
            this.remaining = maxBytes;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0 && --remaining < 0) {
                throw tooLarge();
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            if (n > 0) {
                remaining -= n;
                if (remaining < 0) {
                    throw tooLarge();
                }
            }
            return n;
        }
    }
}
