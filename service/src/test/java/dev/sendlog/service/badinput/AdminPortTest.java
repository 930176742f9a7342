package dev.sendlog.service.badinput;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sendlog.service.receipts.CallbackSignature;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The admin port (API.md, "Admin port"; issue 24, item 2): tasks need an admin key; a request from a web page (any
 * Origin) or through a foreign name (a Host that is not the admin host: DNS rebinding) is refused whatever it asks
 * for; health, ping and metrics stay readable without a key.
 */
class AdminPortTest {
    @RegisterExtension
    static final ServiceHarness SERVICE =
            new ServiceHarness("adminPort.allowedHosts", "admin.sendlog.test,mapped.sendlog.test:18081");

    private static final String PAUSE = "/tasks/pause?component=callback-worker";
    private static final String RESUME = "/tasks/resume?component=callback-worker";

    private static ApiResponse post(String path, String key, String... headers) {
        return SERVICE.admin().postBytes(path, key, "text/plain", new byte[0], headers);
    }

    private static RawResponse raw(RawRequest request) {
        return new RawHttp(SERVICE.admin().baseUrl()).send(request);
    }

    private static int adminPort() {
        String base = SERVICE.admin().baseUrl();
        return Integer.parseInt(base.substring(base.lastIndexOf(':') + 1));
    }

    private static void assertProblem(ApiResponse r, int status) {
        assertThat(r.status()).as(r.raw()).isEqualTo(status);
        assertThat(r.contentType()).startsWith("application/problem+json");
        assertThat(r.json().get("status").asInt()).isEqualTo(status);
    }

    private static void assertProblem(RawResponse r, int status) {
        assertThat(r.status()).as(r.toString()).isEqualTo(status);
        assertThat(r.header("Content-Type")).startsWith("application/problem+json");
        assertThat(r.json().get("status").asInt()).isEqualTo(status);
    }

    /** A signed DELIVRD callback for a sent message ends DELIVERED only while the callback worker runs. */
    private static void assertTheCallbackWorkerRuns() {
        String id = Messages.submitOne(SERVICE, Messages.recipient());
        Messages.awaitStatus(SERVICE, id, "SENT", Duration.ofSeconds(30));
        String providerId = SERVICE.api()
                .get("/v1/messages/" + id, "support-1")
                .json()
                .get("providerId")
                .asText();
        byte[] body = ("{\"id\":\"" + providerId + "\",\"reference\":\"" + id
                        + "\",\"status\":\"DELIVRD\",\"timestamp\":\"2611300931\"}")
                .getBytes(StandardCharsets.UTF_8);
        assertThat(SERVICE.api()
                        .postBytes(
                                "/v1/callbacks/sim",
                                null,
                                "application/json",
                                body,
                                "X-Signature",
                                CallbackSignature.sign("sim-secret", body))
                        .status())
                .isEqualTo(200);
        Messages.awaitStatus(SERVICE, id, "DELIVERED", Duration.ofSeconds(30));
    }

    @Test
    void aPauseSentByAWebPageIs403AndTheWorkerKeepsRunning() {
        // The curl: a "simple" cross-origin POST that a browser sends without a preflight.
        assertProblem(post(PAUSE, null, "Origin", "http://evil.example"), 403);
        // An Origin is refused even with the admin key: no page may drive the admin port.
        assertProblem(post(PAUSE, "admin-1", "Origin", "http://evil.example"), 403);
        assertProblem(post(PAUSE, "admin-1", "Origin", "null"), 403);
        assertProblem(post(PAUSE, "admin-1", "Origin", SERVICE.admin().baseUrl()), 403);
        assertTheCallbackWorkerRuns();
    }

    @Test
    void aRequestWithAnOriginIsRefusedOnEveryPathHealthIncluded() {
        for (String path :
                List.of("/healthcheck", "/ready", "/alarms", "/ping", "/metrics", "/metrics/prometheus", "/threads")) {
            ApiResponse r = SERVICE.admin()
                    .send(SERVICE.admin()
                            .builder(path, null, "Origin", "http://evil.example")
                            .GET());
            assertProblem(r, 403);
        }
    }

    @Test
    void aForeignHostIs403WhateverItAsksFor() {
        for (String host : List.of(
                "attacker.example",
                "attacker.example:" + adminPort(),
                "127.0.0.1.attacker.example",
                "localhost.",
                "10.0.0.1",
                "[::2]",
                "localhost:1",
                "127.0.0.1:" + (adminPort() + 1),
                "admin.sendlog.test:1",
                "mapped.sendlog.test",
                "mapped.sendlog.test:" + adminPort())) {
            assertProblem(
                    raw(RawRequest.get("/healthcheck").header("Host", host).build()), 403);
            assertProblem(raw(RawRequest.get("/metrics").header("Host", host).build()), 403);
            assertProblem(
                    raw(RawRequest.post(PAUSE)
                            .header("Host", host)
                            .header("Authorization", "Bearer admin-1")
                            .build()),
                    403);
        }
        // A Host that is not even a host name Jetty refuses itself (400); either way nothing is served.
        for (String host : List.of("127.0.0.1:", "[::1", "", "127.0.0.1:x")) {
            assertThat(raw(RawRequest.get("/healthcheck").header("Host", host).build())
                            .status())
                    .as(host)
                    .isIn(400, 403);
        }
        assertTheCallbackWorkerRuns();
    }

    @Test
    void theAdminHostByNameOrAddressWithOrWithoutThePortIsServed() {
        int port = adminPort();
        for (String host : List.of(
                "127.0.0.1",
                "127.0.0.1:" + port,
                "localhost",
                "LocalHost:" + port,
                "[::1]",
                "[::1]:" + port,
                "admin.sendlog.test",
                "admin.sendlog.test:" + port,
                "mapped.sendlog.test:18081")) {
            RawResponse r = raw(RawRequest.get("/ping").header("Host", host).build());
            assertThat(r.status()).as(host + ": " + r).isEqualTo(200);
        }
    }

    @Test
    void aTaskWithoutAKeyOrWithAWrongOneIs401() {
        for (String key : new String[] {null, "wrong-key", "", "ADMIN-1", "admin-1x"}) {
            ApiResponse r = post(PAUSE, key);
            assertProblem(r, 401);
            assertThat(r.header("WWW-Authenticate")).startsWith("Bearer");
        }
        assertProblem(post(PAUSE, null, "Authorization", "Basic YWRtaW4tMTo="), 401);
        assertProblem(post("/tasks/gc", null), 401);
        assertTheCallbackWorkerRuns();
    }

    @Test
    void aTaskWithAClientOrSupportKeyIs403() {
        for (String key : new String[] {"client-a", "support-1"}) {
            assertProblem(post(PAUSE, key), 403);
        }
        assertTheCallbackWorkerRuns();
    }

    @Test
    void anAdminKeyRunsTasks() {
        ApiResponse paused = post(PAUSE, "admin-1");
        try {
            assertThat(paused.status()).as(paused.raw()).isEqualTo(200);
            assertThat(paused.raw()).contains("pause callback-worker");
        } finally {
            ApiResponse resumed = post(RESUME, "admin-1");
            assertThat(resumed.status()).as(resumed.raw()).isEqualTo(200);
        }
        assertTheCallbackWorkerRuns();
    }

    @Test
    void aComponentTaskNamingNoComponentOfThisProcessIs400AndChangesNothing() {
        // Issue 24, item 11: Dropwizard's task servlet answers a task's exception with 500, as if the fault were ours.
        for (String path : List.of(
                "/tasks/pause?component=nope",
                "/tasks/resume?component=nope",
                "/tasks/pause",
                "/tasks/pause?component=",
                "/tasks/pause?component=poller&component=send-worker",
                "/tasks/pause?component=CALLBACK-WORKER",
                "/tasks/resume?other=callback-worker")) {
            ApiResponse r = post(path, "admin-1");
            assertProblem(r, 400);
            assertThat(r.json().get("detail").asText()).as(path).contains("callback-worker");
        }
        assertTheCallbackWorkerRuns();
    }

    @Test
    void healthReadinessPingAndMetricsAreReadableWithoutAKey() {
        ApiResponse health = SERVICE.admin().get("/healthcheck", null);
        assertThat(health.status()).as(health.raw()).isIn(200, 500);
        assertThat(health.json().has("database")).as(health.raw()).isTrue();
        assertThat(SERVICE.admin().get("/ping", null).raw()).contains("pong");
        // What a load balancer polls (it has no key): ready until SIGTERM begins the hand-over (ShutdownHandOverTest).
        ApiResponse ready = SERVICE.admin().get("/ready", null);
        assertThat(ready.status()).as(ready.raw()).isEqualTo(200);
        assertThat(ready.raw()).isEqualTo("ready\n");
        ApiResponse alarms = SERVICE.admin().get("/alarms", null);
        assertThat(alarms.status()).as(alarms.raw()).isEqualTo(200);
        assertThat(alarms.json().get("alarms").has("parked")).isTrue();
        assertThat(SERVICE.admin().get("/metrics", null).json().has("counters")).isTrue();
        ApiResponse prometheus = SERVICE.admin().get("/metrics/prometheus", null);
        assertThat(prometheus.status()).isEqualTo(200);
        assertThat(prometheus.raw()).isNotEmpty();
    }

    @Test
    void everyOtherAdminPageNeedsTheAdminKey() {
        // Thread dumps and the task list say more about the process than an unauthenticated caller needs.
        for (String path : List.of("/threads", "/tasks/", "/")) {
            assertProblem(SERVICE.admin().get(path, null), 401);
            assertProblem(SERVICE.admin().get(path, "support-1"), 403);
        }
        assertThat(SERVICE.admin().get("/threads", "admin-1").status()).isEqualTo(200);
    }
}
