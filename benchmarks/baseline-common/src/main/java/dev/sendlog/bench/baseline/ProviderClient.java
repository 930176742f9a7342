package dev.sendlog.bench.baseline;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.apache.hc.core5.util.Timeout;

/**
 * The baselines' provider call: {@code POST {baseUrl}/v1/submit} of the provider contract, over the same
 * pooled keep-alive Apache client sendlog's adapter uses, so that no system pays more per call than another.
 */
public final class ProviderClient implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String submitUri;
    private final String authorization;
    private final CloseableHttpClient http;

    /** Thrown for any answer but 200/201 with an id. */
    public static final class SubmitFailed extends Exception {
        public SubmitFailed(String message) {
            super(message);
        }
    }

    public ProviderClient(String baseUrl, String token, int maxConnections) {
        this.submitUri = baseUrl.replaceAll("/+$", "") + "/v1/submit";
        this.authorization = "Bearer " + token;
        this.http = HttpClients.custom()
                .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
                        .setMaxConnTotal(maxConnections)
                        .setMaxConnPerRoute(maxConnections)
                        .setDefaultConnectionConfig(ConnectionConfig.custom()
                                .setConnectTimeout(Timeout.ofSeconds(2))
                                .setSocketTimeout(Timeout.ofSeconds(10))
                                .build())
                        .build())
                .setDefaultRequestConfig(RequestConfig.custom()
                        .setConnectionRequestTimeout(Timeout.ofSeconds(10))
                        .setResponseTimeout(Timeout.ofSeconds(10))
                        .build())
                .disableAutomaticRetries()
                .disableCookieManagement()
                .build();
    }

    /** Submits one message with its idempotency key and reference; returns the provider's id. */
    public String submit(String idempotencyKey, String to, String body, String reference)
            throws IOException, SubmitFailed {
        ObjectNode json =
                JSON.createObjectNode().put("to", to).put("body", body).put("reference", reference);
        HttpPost post = new HttpPost(submitUri);
        post.setHeader("Authorization", authorization);
        post.setHeader("Idempotency-Key", idempotencyKey);
        post.setEntity(new StringEntity(json.toString(), ContentType.APPLICATION_JSON));
        String[] answer = http.execute(post, response -> new String[] {
            Integer.toString(response.getCode()),
            response.getEntity() == null ? "" : EntityUtils.toString(response.getEntity(), StandardCharsets.UTF_8)
        });
        int status = Integer.parseInt(answer[0]);
        String id = status == 200 || status == 201
                ? JSON.readTree(answer[1]).path("id").asText("")
                : "";
        if (id.isEmpty()) {
            throw new SubmitFailed("provider answered " + status + ": " + answer[1]);
        }
        return id;
    }

    @Override
    public void close() throws IOException {
        http.close();
    }
}
