package dev.sendlog.service.webhooks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sendlog.service.support.WebhookSink;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The send-time SSRF check and the HTTP rules of a delivery (API.md, "Status webhooks"; issue 27), against a real
 * receiver on loopback: with private targets refused, a loopback address is refused by the client's own resolver, so
 * no connection is made, whether the URL names an address or a name; redirects are not followed; the retry policy
 * doubles to its cap, honours Retry-After and ends in DEAD at the window.
 */
class WebhookPosterTest {
    private static WebhookSink sink;

    @BeforeAll
    static void start() throws Exception {
        sink = new WebhookSink();
    }

    @AfterAll
    static void stop() {
        sink.close();
    }

    private static WebhookPoster poster(boolean allowPrivate) {
        return new WebhookPoster(
                new WebhookTargets(allowPrivate, WebhookTargets.SYSTEM),
                WebhookTargets.SYSTEM,
                Duration.ofSeconds(1),
                Duration.ofSeconds(1),
                4);
    }

    private static final byte[] BODY = "{\"eventId\":\"x:1\"}".getBytes(StandardCharsets.UTF_8);

    @Test
    void aPrivateTargetIsRefusedAtSendTimeWithoutAConnection() throws Exception {
        try (WebhookPoster refusing = poster(false)) {
            for (String url :
                    new String[] {sink.url("/private"), sink.url("/private").replace("127.0.0.1", "localhost")}) {
                WebhookPoster.Outcome o = refusing.post(url, "x:1", "t=1,v1=00", BODY);
                assertThat(o.delivered()).isFalse();
                assertThat(o.httpStatus()).isNull();
                assertThat(o.detail()).as(url).startsWith("refused: ").contains("is loopback");
            }
        }
        assertThat(sink.received("/private")).as("never connected").isEmpty();
        try (WebhookPoster allowing = poster(true)) {
            WebhookPoster.Outcome o = allowing.post(sink.url("/private"), "x:1", "t=1,v1=00", BODY);
            assertThat(o.delivered()).as(o.detail()).isTrue();
        }
        assertThat(sink.received("/private")).singleElement().satisfies(r -> {
            assertThat(r.header("Sendlog-Event-Id")).isEqualTo("x:1");
            assertThat(r.header("Sendlog-Signature")).isEqualTo("t=1,v1=00");
            assertThat(r.body()).isEqualTo(BODY);
        });
    }

    /**
     * Endpoints sharing a host and port (two tenants of one hosted receiver) do not share a connection bound: with four
     * posts hanging on one, a fifth post, to the other, reaches it while the four still hang (the HTTP pool's per-route
     * limit once held it back until one of them timed out; the timeout here is far longer than the wait).
     */
    @Test
    void postsToOneHangingEndpointDoNotHoldUpAnotherOnTheSameHost() throws Exception {
        sink.always("/hanging", new WebhookSink.Hang());
        sink.always("/beside", new WebhookSink.Hang());
        try (WebhookPoster p = new WebhookPoster(
                        new WebhookTargets(true, WebhookTargets.SYSTEM),
                        WebhookTargets.SYSTEM,
                        Duration.ofSeconds(1),
                        Duration.ofSeconds(60),
                        64);
                var pool = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            try {
                for (int i = 0; i < 4; i++) {
                    pool.submit(() -> p.post(sink.url("/hanging"), "x:1", "t=1,v1=00", BODY));
                }
                org.awaitility.Awaitility.await()
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> sink.received("/hanging").size() == 4);
                pool.submit(() -> p.post(sink.url("/beside"), "y:1", "t=1,v1=00", BODY));
                org.awaitility.Awaitility.await()
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> sink.received("/beside").size() == 1);
            } finally {
                // Before the pool closes (it waits for the posts): the hanging ones end now.
                sink.always("/hanging", WebhookSink.OK);
                sink.always("/beside", WebhookSink.OK);
                sink.release();
            }
        }
    }

    @Test
    void aRedirectIsAFailedAttemptAndNotFollowed() throws Exception {
        sink.then("/moved", new WebhookSink.Status(307, null));
        try (WebhookPoster p = poster(true)) {
            WebhookPoster.Outcome o = p.post(sink.url("/moved"), "x:1", "t=1,v1=00", BODY);
            assertThat(o.delivered()).isFalse();
            assertThat(o.httpStatus()).isEqualTo(307);
        }
        assertThat(sink.received("/moved")).hasSize(1);
    }

    @Test
    void retriesDoubleToTheirCapHonourRetryAfterAndEndDeadAtTheWindow() {
        WebhookRetries r = new WebhookRetries(Duration.ofSeconds(1), Duration.ofHours(1), Duration.ofHours(24));
        assertThat(r.backoff(1)).isEqualTo(Duration.ofSeconds(1));
        assertThat(r.backoff(2)).isEqualTo(Duration.ofSeconds(2));
        assertThat(r.backoff(5)).isEqualTo(Duration.ofSeconds(16));
        assertThat(r.backoff(12)).isEqualTo(Duration.ofSeconds(2048));
        assertThat(r.backoff(13)).as("4096 s, capped").isEqualTo(Duration.ofHours(1));
        assertThat(r.backoff(1000)).isEqualTo(Duration.ofHours(1));
        Instant owed = Instant.parse("2026-12-04T00:00:00Z");
        Instant now = owed.plusSeconds(10);
        assertThat(r.next(now, 3, null, owed)).isEqualTo(now.plusSeconds(4));
        assertThat(r.next(now, 3, Duration.ofSeconds(120), owed))
                .as("Retry-After as given")
                .isEqualTo(now.plusSeconds(120));
        assertThat(r.next(now, 1, Duration.ofHours(30), owed))
                .as("asked to come back after the window: DEAD")
                .isNull();
        Instant late = owed.plus(Duration.ofHours(23)).plusSeconds(1800);
        assertThat(r.next(late, 20, null, owed))
                .as("the next retry would fall after the 24 h")
                .isNull();
        assertThat(r.next(owed.plus(Duration.ofHours(22)), 20, null, owed)).isEqualTo(owed.plus(Duration.ofHours(23)));
    }
}
