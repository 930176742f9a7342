package dev.sendlog.service.send.provider;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sendlog.events.JsonMappers;
import dev.sendlog.service.config.GatewaySettings;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import org.apache.hc.client5.http.ConnectTimeoutException;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ConnectionRequestTimeoutException;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.pool.PoolConcurrencyPolicy;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;

/**
 * The generic HTTP adapter of API.md's provider contract: {@code POST {baseUrl}/v1/submit} with a bearer
 * token and the Idempotency-Key of the message, over pooled keep-alive connections with connect and request
 * timeouts. Blocking I/O on the caller's virtual thread: no hand-off per request (the JDK's HttpClient cost
 * about 1 ms of CPU per submit here, more than everything else a worker does).
 */
public final class HttpProvider implements Provider, AutoCloseable {
    private static final int MAX_TEXT = 500;
    /** Answers up to this size with a given length are read into an array of that length. */
    private static final int SMALL_ANSWER_BYTES = 64 * 1024;
    /** Answers that refuse a submit before its acceptance: the provider certainly does not have the message. */
    private static final java.util.Set<Integer> REFUSED_BEFORE_ACCEPTANCE = java.util.Set.of(401, 403, 503);

    private final String gateway;
    private final URI submitUri;
    private final String statusBase;
    private final boolean statusQuery;
    private final String authorization;
    private final Duration requestTimeout;
    private final CloseableHttpClient http;
    private final ObjectMapper json = JsonMappers.pooled();

    /**
     * An answer's bytes. One whose length is given is read into an array of that size: EntityUtils takes a 4 KB
     * buffer for every answer, and a provider's answers are a few dozen bytes.
     */
    private static byte[] answerBytes(HttpEntity entity) throws IOException {
        if (entity == null) {
            return new byte[0];
        }
        long length = entity.getContentLength();
        if (length < 0 || length > SMALL_ANSWER_BYTES) {
            return EntityUtils.toByteArray(entity);
        }
        try (InputStream in = entity.getContent()) {
            return in == null ? new byte[0] : in.readNBytes((int) length);
        }
    }

    /** @param maxConnections connections to this gateway at most (the send workers' concurrency) */
    public HttpProvider(String gateway, GatewaySettings settings, int maxConnections) {
        this.gateway = gateway;
        this.submitUri = URI.create(settings.baseUrl.replaceAll("/+$", "") + "/v1/submit");
        this.statusBase = submitUri + "/";
        this.statusQuery = settings.statusQuery;
        this.authorization = "Bearer " + settings.token;
        this.requestTimeout = Duration.ofMillis(settings.requestTimeoutMs);
        PoolingHttpClientConnectionManager pool = PoolingHttpClientConnectionManagerBuilder.create()
                .setMaxConnTotal(maxConnections)
                .setMaxConnPerRoute(maxConnections)
                // The workers' semaphore bounds the calls; the strict pool's one lock was a hot spot at 256 workers.
                .setPoolConcurrencyPolicy(PoolConcurrencyPolicy.LAX)
                .setDefaultConnectionConfig(ConnectionConfig.custom()
                        .setConnectTimeout(Timeout.ofMilliseconds(settings.connectTimeoutMs))
                        .setSocketTimeout(Timeout.ofMilliseconds(settings.requestTimeoutMs))
                        .setValidateAfterInactivity(TimeValue.ofSeconds(2))
                        .build())
                .build();
        this.http = HttpClients.custom()
                .setConnectionManager(pool)
                .setDefaultRequestConfig(RequestConfig.custom()
                        .setConnectionRequestTimeout(Timeout.ofMilliseconds(settings.requestTimeoutMs))
                        .setResponseTimeout(Timeout.ofMilliseconds(settings.requestTimeoutMs))
                        .build())
                // A submit is not idempotent at the HTTP level without its key; retries are ours, with the key.
                .disableAutomaticRetries()
                .disableRedirectHandling()
                .disableCookieManagement()
                .disableContentCompression()
                .build();
    }

    @Override
    public SubmitOutcome submit(Submit submit) {
        ObjectNode body = json.createObjectNode()
                .put("to", submit.to())
                .put("body", submit.body())
                .put("reference", submit.reference())
                .put("callbackUrl", submit.callbackUrl());
        if (submit.from() != null) {
            body.put("from", submit.from());
        }
        if (submit.validUntil() != null) {
            // The remaining validity, as the instant it ends (API.md's provider contract names "validUntil").
            body.put("validUntil", submit.validUntil().toString());
        }
        HttpPost post = new HttpPost(submitUri);
        post.setHeader("Authorization", authorization);
        post.setHeader("Idempotency-Key", submit.idempotencyKey());
        try {
            post.setEntity(new ByteArrayEntity(json.writeValueAsBytes(body), ContentType.APPLICATION_JSON));
            return http.execute(post, response -> {
                int status = response.getCode();
                byte[] answer = answerBytes(response.getEntity());
                if (status == 200 || status == 201) {
                    String id = providerId(answer);
                    return id != null
                            ? new SubmitOutcome.Accepted(id)
                            : new SubmitOutcome.Transient(
                                    gateway + ": " + status + " without an id: "
                                            + truncate(new String(answer, StandardCharsets.UTF_8)),
                                    null);
                }
                String text = new String(answer, StandardCharsets.UTF_8);
                if (status == 400 || status == 422) {
                    return new SubmitOutcome.Permanent(status, truncate(text));
                }
                Header retryAfter = response.getFirstHeader("Retry-After");
                if (status == 429) {
                    return new SubmitOutcome.Throttled(
                            gateway + ": HTTP 429: " + truncate(text),
                            retryAfter(retryAfter == null ? null : retryAfter.getValue()));
                }
                // 5xx, and anything unexpected (a 401 of a misconfigured token): retried, never a silent rejection.
                // 503 (not handled), 401 and 403 (not allowed) are refusals before acceptance: certainly not taken.
                return new SubmitOutcome.Transient(
                        gateway + ": HTTP " + status + ": " + truncate(text),
                        retryAfter(retryAfter == null ? null : retryAfter.getValue()),
                        REFUSED_BEFORE_ACCEPTANCE.contains(status));
            });
        } catch (ConnectException | ConnectTimeoutException | ConnectionRequestTimeoutException e) {
            // No connection to send it on (refused, not made in time, none free in the pool): no byte of it went out.
            return new SubmitOutcome.Transient(
                    gateway + ": no connection: " + e.getClass().getSimpleName() + ": " + e.getMessage(), null, true);
        } catch (SocketTimeoutException e) {
            return new SubmitOutcome.Transient(
                    gateway + ": no answer within " + requestTimeout.toMillis() + " ms", null);
        } catch (IOException e) {
            return new SubmitOutcome.Transient(
                    gateway + ": " + e.getClass().getSimpleName() + ": " + e.getMessage(), null);
        }
    }

    @Override
    public boolean answersStatusQueries() {
        return statusQuery;
    }

    /**
     * {@code GET {baseUrl}/v1/submit/{Idempotency-Key}} with the bearer token: 200 with an id is {@link StatusAnswer.Found}
     * (the body kept as it came), 404 {@link StatusAnswer.NeverTaken}, anything else (429, 5xx, a 200 without an id, a
     * timeout, a cut connection) {@link StatusAnswer.Failed}: a query that cannot say is never read as "never taken".
     */
    @Override
    public StatusAnswer status(String idempotencyKey) {
        if (!statusQuery) {
            throw new UnsupportedOperationException("gateway " + gateway + " does not have statusQuery: true");
        }
        HttpGet get = new HttpGet(URI.create(statusBase
                + java.net.URLEncoder.encode(idempotencyKey, StandardCharsets.UTF_8)
                        .replace("+", "%20")));
        get.setHeader("Authorization", authorization);
        try {
            return http.execute(get, response -> {
                int status = response.getCode();
                byte[] answer = answerBytes(response.getEntity());
                if (status == 200) {
                    String id = providerId(answer);
                    return id != null
                            ? new StatusAnswer.Found(id, answer)
                            : new StatusAnswer.Failed(
                                    gateway + ": status query answered 200 without an id: "
                                            + truncate(new String(answer, StandardCharsets.UTF_8)),
                                    null);
                }
                if (status == 404) {
                    return new StatusAnswer.NeverTaken();
                }
                Header retryAfter = response.getFirstHeader("Retry-After");
                return new StatusAnswer.Failed(
                        gateway + ": status query HTTP " + status + ": "
                                + truncate(new String(answer, StandardCharsets.UTF_8)),
                        retryAfter(retryAfter == null ? null : retryAfter.getValue()));
            });
        } catch (SocketTimeoutException e) {
            return new StatusAnswer.Failed(
                    gateway + ": status query not answered within " + requestTimeout.toMillis() + " ms", null);
        } catch (IOException e) {
            return new StatusAnswer.Failed(
                    gateway + ": status query " + e.getClass().getSimpleName() + ": " + e.getMessage(), null);
        }
    }

    private String providerId(byte[] body) {
        if (body.length == 0) {
            return null;
        }
        try {
            JsonNode node = json.readTree(body);
            JsonNode id = node == null ? null : node.get("id");
            return id != null && id.isTextual() && !id.asText().isBlank() ? id.asText() : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** A Retry-After header as a wait: delay-seconds or an HTTP date; null when absent or neither. */
    public static Duration retryAfter(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return Duration.ofSeconds(Math.max(0, Long.parseLong(value.trim())));
        } catch (NumberFormatException notSeconds) {
            try {
                ZonedDateTime at = ZonedDateTime.parse(value.trim(), DateTimeFormatter.RFC_1123_DATE_TIME);
                Duration d = Duration.between(ZonedDateTime.now(at.getZone()), at);
                return d.isNegative() ? Duration.ZERO : d;
            } catch (DateTimeParseException notADate) {
                return null;
            }
        }
    }

    private static String truncate(String s) {
        if (s == null) {
            return "";
        }
        return s.length() <= MAX_TEXT ? s : s.substring(0, MAX_TEXT) + "...";
    }

    @Override
    public void close() throws IOException {
        http.close();
    }
}
