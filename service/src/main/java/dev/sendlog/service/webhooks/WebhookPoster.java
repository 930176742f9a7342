package dev.sendlog.service.webhooks;

import dev.sendlog.service.send.provider.HttpProvider;
import java.io.IOException;
import java.net.InetAddress;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.hc.client5.http.DnsResolver;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.pool.PoolConcurrencyPolicy;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;

/**
 * Posts one signed delivery (API.md, "Status webhooks"). The host is resolved by {@link WebhookTargets}' rules inside the
 * HTTP client's own resolver, so the address connected to is the address checked: a name that resolved to a public
 * address at registration and resolves to a private one now (DNS rebinding) fails the attempt, and no lookup happens
 * between the check and the connection. Redirects are not followed (a 3xx is a failed attempt), nothing is retried
 * here (retries are the worker's, with backoff), and the answer's body is read at most {@value #MAX_ANSWER} bytes.
 */
public final class WebhookPoster implements AutoCloseable {
    private static final int MAX_ANSWER = 4096;

    /** What one attempt came to: an HTTP status (null when there was no answer), a Retry-After, a line for support. */
    public record Outcome(Integer httpStatus, Duration retryAfter, String detail) {
        public boolean delivered() {
            return httpStatus != null && httpStatus >= 200 && httpStatus < 300;
        }
    }

    /** An address the rules refuse: thrown from the resolver so that the client never connects. */
    static final class RefusedTarget extends UnknownHostException {
        private static final long serialVersionUID = 1L;

        RefusedTarget(String message) {
            super(message);
        }
    }

    private final CloseableHttpClient http;
    private final Duration timeout;

    /** @param total connections in all, to any one host as well (the worker's lanes bound each endpoint) */
    public WebhookPoster(
            WebhookTargets targets,
            WebhookTargets.Resolver resolver,
            Duration connectTimeout,
            Duration timeout,
            int total) {
        this.timeout = timeout;
        DnsResolver checked = new DnsResolver() {
            @Override
            public InetAddress[] resolve(String host) throws UnknownHostException {
                String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
                InetAddress[] all = resolver.resolve(bare);
                List<InetAddress> allowed = new ArrayList<>(all.length);
                for (InetAddress address : all) {
                    String refusal = targets.refusal(address);
                    if (refusal != null) {
                        // All or nothing, as at registration: a name with one private address is not a target.
                        throw new RefusedTarget(
                                host + " resolves to " + address.getHostAddress() + ", which " + refusal);
                    }
                    allowed.add(address);
                }
                if (allowed.isEmpty()) {
                    throw new UnknownHostException(host + " does not resolve");
                }
                return allowed.toArray(InetAddress[]::new);
            }

            @Override
            public String resolveCanonicalHostname(String host) {
                return host;
            }
        };
        PoolingHttpClientConnectionManager pool = PoolingHttpClientConnectionManagerBuilder.create()
                .setDnsResolver(checked)
                .setMaxConnTotal(total)
                // Not a per-endpoint bound: a route is a host and port, and tenants' endpoints may share one (a hosted
                // receiver service); the worker's lanes bound each endpoint, the pool must not couple them.
                .setMaxConnPerRoute(total)
                .setPoolConcurrencyPolicy(PoolConcurrencyPolicy.LAX)
                .setDefaultConnectionConfig(ConnectionConfig.custom()
                        .setConnectTimeout(Timeout.of(connectTimeout))
                        .setSocketTimeout(Timeout.of(timeout))
                        .setValidateAfterInactivity(TimeValue.ofSeconds(2))
                        .setTimeToLive(TimeValue.ofMinutes(5)) // a name's address is checked again at least this often
                        .build())
                .build();
        this.http = HttpClients.custom()
                .setConnectionManager(pool)
                .setDefaultRequestConfig(RequestConfig.custom()
                        .setConnectionRequestTimeout(Timeout.of(timeout))
                        .setResponseTimeout(Timeout.of(timeout))
                        .build())
                .disableAutomaticRetries()
                .disableRedirectHandling()
                .disableCookieManagement()
                .disableContentCompression()
                .disableAuthCaching()
                .setUserAgent("sendlog-webhooks/1")
                .build();
    }

    /** Posts {@code body} to {@code url} with the event id and signature headers; never throws for the endpoint's faults. */
    public Outcome post(String url, String eventId, String signature, byte[] body) {
        HttpPost post;
        try {
            post = new HttpPost(URI.create(url));
        } catch (IllegalArgumentException e) {
            return new Outcome(null, null, "the registered URL does not parse: " + e.getMessage());
        }
        post.setHeader("Sendlog-Event-Id", eventId);
        post.setHeader(WebhookSignature.HEADER, signature);
        post.setEntity(new ByteArrayEntity(body, ContentType.APPLICATION_JSON));
        try {
            return http.execute(post, response -> {
                int status = response.getCode();
                String answer = "";
                if (response.getEntity() != null) {
                    byte[] bytes = response.getEntity().getContent().readNBytes(MAX_ANSWER);
                    answer = new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
                    EntityUtils.consumeQuietly(response.getEntity());
                }
                Header retryAfter = response.getFirstHeader("Retry-After");
                Header location = response.getFirstHeader("Location");
                String detail = "HTTP " + status
                        + (status >= 300 && status < 400 && location != null
                                ? " (redirects are not followed; Location " + abbreviate(location.getValue()) + ")"
                                : "")
                        + (answer.isBlank() ? "" : ": " + abbreviate(answer.strip()));
                return new Outcome(
                        status, HttpProvider.retryAfter(retryAfter == null ? null : retryAfter.getValue()), detail);
            });
        } catch (RefusedTarget e) {
            return new Outcome(null, null, "refused: " + e.getMessage());
        } catch (SocketTimeoutException e) {
            return new Outcome(null, null, "no answer within " + timeout.toSeconds() + " s");
        } catch (IOException e) {
            return new Outcome(
                    null, null, e.getClass().getSimpleName() + ": " + abbreviate(String.valueOf(e.getMessage())));
        }
    }

    private static String abbreviate(String s) {
        return s.length() <= 200 ? s : s.substring(0, 200) + "...";
    }

    @Override
    public void close() throws IOException {
        http.close();
    }
}
