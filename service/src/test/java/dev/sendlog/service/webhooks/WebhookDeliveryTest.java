package dev.sendlog.service.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sendlog.service.support.ApiClient;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import dev.sendlog.service.support.WebhookSink;
import dev.sendlog.simulator.ReceiptMode;
import dev.sendlog.simulator.SimulatorConfig;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Status webhook deliveries (API.md, "Status webhooks"; issue 27; DESIGN invariant 17) end to end: messages sent through
 * the simulator with final receipts, their status events delivered signed to a receiver started here, which answers as
 * each test scripts it (500, a hang past the timeout, a cut connection, 410, Retry-After). The whole pipeline runs in
 * one process with the webhook worker; the clock is the test's, so retries come due when the test moves it. Each test
 * registers its own tenant's endpoint (test-config.yml: client-a is acme, client-b globex; admin-1 names any tenant).
 * The lease is 30 days of the test's clock, which jumps hours at a time: a shorter one would end, and the delivery be
 * leased again, while its job's request is still in flight in real time.
 */
class WebhookDeliveryTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
                    "components",
                    "API,POLLER,SEND_WORKER,CALLBACK_WORKER,MAINTENANCE,WEBHOOK_WORKER",
                    "webhooks.timeout",
                    "1s",
                    "webhooks.connectTimeout",
                    "1s",
                    "webhooks.leaseTimeout",
                    "30d",
                    "webhooks.dispatchEvery",
                    "50ms")
            .simulator(SimulatorConfig.defaults().toBuilder()
                    .latencyMs(2)
                    .receiptMode(ReceiptMode.FINAL)
                    .intermediateReceipts(0)
                    .receiptDelayMs(20)
                    .undeliveredRate(0)
                    .build());

    private static final ObjectMapper JSON = new ObjectMapper();
    private static WebhookSink sink;

    @BeforeAll
    static void startSink() throws Exception {
        sink = new WebhookSink();
    }

    @AfterAll
    static void stopSink() {
        sink.close();
    }

    /** Registers {@code tenant}'s endpoint afresh (a registration left by another test is removed first); its secret. */
    private static String register(String tenant, String path, String events) {
        unregister(tenant);
        String body = "{\"url\":\"" + sink.url(path) + "\",\"events\":" + events + "}";
        ApiClient api = SERVICE.api();
        ApiResponse r = api.send(
                api.builder("/v1/webhook?tenant=" + tenant, "admin-1", "Content-Type", "application/json")
                        .PUT(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)),
                body);
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        return r.json().has("secret") ? r.json().get("secret").asText() : null;
    }

    private static void unregister(String tenant) {
        SERVICE.api()
                .send(SERVICE.api()
                        .builder("/v1/webhook?tenant=" + tenant, "admin-1")
                        .DELETE());
    }

    private static String submit(String key) {
        ApiResponse r = SERVICE.api()
                .post(
                        "/v1/messages",
                        key,
                        "{\"to\":\"" + Messages.recipient() + "\",\"body\":\"hook\",\"reference\":\"ref-" + key
                                + "\"}");
        assertThat(r.status()).as(r.raw()).isEqualTo(202);
        return r.json().get("id").asText();
    }

    private static JsonNode json(WebhookSink.Received r) {
        try {
            return JSON.readTree(r.body());
        } catch (Exception e) {
            throw new AssertionError(r.text(), e);
        }
    }

    /** What {@code path} received about {@code ids} (other tests' deliveries may reach a path their tenant used before). */
    private static List<WebhookSink.Received> ours(String path, List<String> ids) {
        return sink.received(path).stream()
                .filter(r -> ids.contains(json(r).get("messageId").asText()))
                .toList();
    }

    private static List<String> outcomes(String messageId) {
        List<String> out = new ArrayList<>();
        try (var c = SERVICE.dataSource().getConnection();
                var st = c.prepareStatement(
                        "SELECT coalesce(http_status::text, '-') || ' ' || outcome FROM webhook_attempts "
                                + "WHERE message_id = ?::uuid ORDER BY seq, attempt")) {
            st.setString(1, messageId);
            try (var rs = st.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        } catch (java.sql.SQLException e) {
            throw new AssertionError(e);
        }
        return out;
    }

    /**
     * Every chosen status of every message reaches the endpoint once, signed with the secret the registration showed,
     * with the body of API.md; a status not chosen is never sent; and nothing is delivered for a tenant without a
     * registration.
     */
    @Test
    void everyChosenStatusOfEveryMessageArrivesSignedWithTheContractsBody() throws Exception {
        String secret = register("acme", "/acme", "[\"SENT\",\"DELIVERED\"]");
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            ids.add(submit("client-a"));
        }
        unregister("globex");
        String unregistered = submit("client-b");
        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(() -> assertThat(ours("/acme", ids)).hasSize(2 * ids.size()));

        Set<String> eventIds = new HashSet<>();
        for (WebhookSink.Received r : ours("/acme", ids)) {
            JsonNode body = json(r);
            String eventId = body.get("eventId").asText();
            assertThat(eventIds.add(eventId)).as("each event once: " + eventId).isTrue();
            assertThat(r.header("Sendlog-Event-Id")).isEqualTo(eventId);
            assertThat(eventId)
                    .isEqualTo(body.get("messageId").asText() + ":"
                            + body.get("seq").asInt());
            assertThat(body.get("status").asText()).isIn("SENT", "DELIVERED");
            assertThat(body.get("reference").asText()).isEqualTo("ref-client-a");
            assertThat(body.has("at") && body.has("providerStatus") && body.has("errorCode"))
                    .as(r.text())
                    .isTrue();
            if (body.get("status").asText().equals("DELIVERED")) {
                assertThat(body.get("providerStatus").isNull())
                        .as("a receipt's word is told")
                        .isFalse();
            }
            assertThat(WebhookSignature.verify(
                            r.header("Sendlog-Signature"),
                            r.body(),
                            WebhookSecret.of(secret),
                            SERVICE.now().getEpochSecond(),
                            300))
                    .as("signed with the registration's secret: " + r.header("Sendlog-Signature"))
                    .isTrue();
        }
        for (String id : ids) {
            // The seq of each delivered status is the seq of the event that made it, in the message's history.
            for (JsonNode e : Messages.history(SERVICE, id)) {
                String type = e.get("type").asText();
                String eventId = id + ":" + e.get("seq").asInt();
                if (type.equals("PROVIDER_ACCEPTED") || type.equals("RECEIPT")) {
                    assertThat(eventIds).as(type + " of " + id).contains(eventId);
                }
            }
        }
        unregister("globex");
        String alsoUnregistered = submit("client-b");
        Messages.awaitStatus(SERVICE, alsoUnregistered, "DELIVERED", Duration.ofSeconds(30));
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT count(*) FROM webhook_deliveries WHERE message_id IN ('" + unregistered + "','"
                                + alsoUnregistered + "')"))
                .as("another tenant's messages owe acme's endpoint nothing")
                .isZero();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(Sql.count(
                                SERVICE.dataSource(),
                                "SELECT count(*) FROM webhook_deliveries WHERE message_id IN ('"
                                        + String.join("','", ids) + "') AND state <> 1"))
                        .isZero());
        unregister("acme");
    }

    /**
     * A failed attempt (500, no answer within the timeout, a cut connection, 410) is retried with backoff until one is
     * answered 2xx; each attempt's outcome is recorded; a Retry-After is honoured as given.
     */
    @Test
    void failedAttemptsAreRetriedWithBackoffHonouringRetryAfterUntilDelivered() throws Exception {
        sink.then(
                "/flaky",
                new WebhookSink.Status(500, null),
                new WebhookSink.Hang(),
                new WebhookSink.Cut(),
                new WebhookSink.Status(410, null),
                new WebhookSink.Status(503, "120"),
                WebhookSink.OK);
        register("globex", "/flaky", "[\"SENT\"]");
        String id = submit("client-b");
        // Five failures, then the 200. The clock moves 30 s at each look: past every backoff (1, 2, 4, 8 s), and past
        // the Retry-After of 120 s after four looks.
        Messages.awaitAdvancing(
                SERVICE,
                Duration.ofSeconds(30),
                Duration.ofSeconds(90),
                () -> assertThat(outcomes(id)).hasSize(6));
        List<String> outcomes = outcomes(id);
        assertThat(outcomes.get(0)).startsWith("500 HTTP 500");
        assertThat(outcomes.get(1)).startsWith("- no answer within");
        assertThat(outcomes.get(2)).startsWith("- ");
        assertThat(outcomes.get(3)).startsWith("410 HTTP 410");
        assertThat(outcomes.get(4)).startsWith("503 HTTP 503");
        assertThat(outcomes.get(5)).startsWith("200 HTTP 200");
        assertThat(ours("/flaky", List.of(id))).hasSize(6);
        // The Retry-After: the attempt after the 503 came no sooner than 120 s (of the test's clock) after it.
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT extract(epoch FROM b.at - a.at)::bigint FROM webhook_attempts a "
                                + "JOIN webhook_attempts b ON b.message_id = a.message_id AND b.seq = a.seq AND b.attempt = 6 "
                                + "WHERE a.message_id = '" + id + "' AND a.attempt = 5"))
                .isGreaterThanOrEqualTo(120);
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT count(*) FROM webhook_deliveries WHERE message_id = '" + id
                                + "' AND state = 1 AND attempts = 6"))
                .isEqualTo(1);

        // The history: support sees each attempt's outcome, the client only that the delivery was made.
        JsonNode bySupport = SERVICE.api()
                .get("/v1/messages/" + id + "/events", "support-1")
                .json()
                .get("webhooks");
        assertThat(bySupport).as("one delivery, of SENT").hasSize(1);
        assertThat(bySupport.get(0).get("status").asText()).isEqualTo("SENT");
        assertThat(bySupport.get(0).get("state").asText()).isEqualTo("DELIVERED");
        assertThat(bySupport.get(0).get("attempts").asInt()).isEqualTo(6);
        assertThat(bySupport.get(0).get("attemptLog")).hasSize(6);
        assertThat(bySupport.get(0).get("attemptLog").get(0).get("httpStatus").asInt())
                .isEqualTo(500);
        assertThat(bySupport.get(0).get("attemptLog").get(1).get("httpStatus").isNull())
                .as("the hang: no answer")
                .isTrue();
        JsonNode byClient = SERVICE.api()
                .get("/v1/messages/" + id + "/events", "client-b")
                .json()
                .get("webhooks");
        assertThat(byClient.get(0).get("state").asText()).isEqualTo("DELIVERED");
        assertThat(byClient.get(0).has("attemptLog"))
                .as("a client sees the state, not the attempts")
                .isFalse();
        unregister("globex");
    }

    /**
     * An endpoint that never answers 2xx is retried for 24 hours and then DEAD: listed for support, re-driven by an
     * admin (owed again, and delivered once the endpoint answers). A delivery that is not DEAD is not re-driven.
     */
    @Test
    void anEndpointThatNeverAcceptsEndsDeadVisibleAndRedrivable() throws Exception {
        sink.always("/down", new WebhookSink.Status(500, null));
        register("suspended", "/down", "[\"ACCEPTED\"]");
        long deadBefore = meter("webhooks.dead");
        String id = submit("client-suspended"); // accepted, then rejected by the worker: its ACCEPTED is what is owed
        String eventId = id + ":1";
        Messages.awaitAdvancing(
                SERVICE,
                Duration.ofHours(2),
                Duration.ofSeconds(120),
                () -> assertThat(Sql.count(
                                SERVICE.dataSource(),
                                "SELECT count(*) FROM webhook_deliveries WHERE message_id = '" + id
                                        + "' AND state = 2"))
                        .isEqualTo(1));
        int attempts = sink.received("/down").size();
        assertThat(attempts).as("retried with backoff, not once per look").isBetween(5, 40);
        ApiResponse dead = SERVICE.api().get("/v1/admin/webhooks/dead", "support-1");
        assertThat(dead.status()).as(dead.raw()).isEqualTo(200);
        JsonNode item = null;
        for (JsonNode i : dead.json().get("items")) {
            if (i.get("eventId").asText().equals(eventId)) {
                item = i;
            }
        }
        assertThat(item).as(dead.raw()).isNotNull();
        assertThat(item.get("status").asText()).isEqualTo("ACCEPTED");
        assertThat(item.get("attempts").asInt()).isEqualTo(attempts);
        assertThat(item.get("lastOutcome").asText()).contains("HTTP 500").contains("DEAD");
        assertThat(meter("webhooks.dead") - deadBefore).as("counted dead once").isEqualTo(1);
        // The client sees its delivery DEAD in the message's history, without the attempts.
        JsonNode byClient = SERVICE.api()
                .get("/v1/messages/" + id + "/events", "client-suspended")
                .json()
                .get("webhooks");
        assertThat(byClient.get(0).get("state").asText()).isEqualTo("DEAD");
        assertThat(byClient.get(0).has("attemptLog")).isFalse();

        assertThat(SERVICE.api()
                        .post("/v1/admin/webhooks/" + eventId + "/redrive", "support-1", "")
                        .status())
                .as("support reads, an admin re-drives")
                .isEqualTo(403);
        assertThat(SERVICE.api()
                        .post("/v1/admin/webhooks/not-an-event/redrive", "admin-1", "")
                        .status())
                .isEqualTo(400);
        sink.always("/down", WebhookSink.OK);
        ApiResponse redriven = SERVICE.api().post("/v1/admin/webhooks/" + eventId + "/redrive", "admin-1", "");
        assertThat(redriven.status()).as(redriven.raw()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(Sql.count(
                                SERVICE.dataSource(),
                                "SELECT count(*) FROM webhook_deliveries WHERE message_id = '" + id
                                        + "' AND state = 1"))
                        .isEqualTo(1));
        assertThat(SERVICE.api()
                        .post("/v1/admin/webhooks/" + eventId + "/redrive", "admin-1", "")
                        .status())
                .as("a delivered delivery is not re-driven")
                .isEqualTo(409);
        unregister("suspended");
    }

    /**
     * An endpoint failing for longer than webhooks.maxOwedAge raises the webhooks alarm on /healthcheck without failing
     * the check (issue 24, item 4: one tenant's endpoint is no reason for a load balancer to take every node out), and
     * the metrics show the delivery owed, its age and its failed attempts; once the endpoint answers, the delivery is
     * made and counted.
     */
    @Test
    void anEndpointFailingPastTheOwedAgeRaisesTheAlarmWithoutFailingTheNodeAndTheMetricsShowIt() throws Exception {
        sink.always("/stuck", new WebhookSink.Status(503, null));
        register("globex", "/stuck", "[\"ACCEPTED\"]");
        long deliveredBefore = meter("webhooks.delivered");
        long failedBefore = meter("webhooks.attempts.failed");
        String id = submit("client-b");
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(ours("/stuck", List.of(id))).isNotEmpty());
        SERVICE.clock().advance(Duration.ofMinutes(16));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            JsonNode check = SERVICE.admin().get("/healthcheck", null).json().get("webhooks");
            assertThat(check.get("healthy").asBoolean()).as(check.toString()).isTrue();
            assertThat(check.get("alarmsRaised").asBoolean())
                    .as(check.toString())
                    .isTrue();
            assertThat(check.get("message").asText()).contains("owed").contains("not the node's health");
            assertThat(gauge("webhooks.owed")).isGreaterThanOrEqualTo(1);
            assertThat(gauge("webhooks.oldest.owed.seconds"))
                    .isGreaterThanOrEqualTo(Duration.ofMinutes(16).toSeconds());
            assertThat(meter("webhooks.attempts.failed")).isGreaterThan(failedBefore);
        });
        sink.always("/stuck", WebhookSink.OK);
        Messages.awaitAdvancing(
                SERVICE,
                Duration.ofMinutes(5),
                Duration.ofSeconds(60),
                () -> assertThat(Sql.count(
                                SERVICE.dataSource(),
                                "SELECT count(*) FROM webhook_deliveries WHERE message_id = '" + id
                                        + "' AND state = 1"))
                        .isEqualTo(1));
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(meter("webhooks.delivered")).isGreaterThan(deliveredBefore));
        unregister("globex");
    }

    private static long gauge(String name) {
        return SERVICE.admin()
                .get("/metrics", null)
                .json()
                .path("gauges")
                .path(name)
                .path("value")
                .asLong();
    }

    private static long meter(String name) {
        return SERVICE.admin()
                .get("/metrics", null)
                .json()
                .path("meters")
                .path(name)
                .path("count")
                .asLong();
    }

    /**
     * One slow endpoint (each answer after 700 ms) holds at most its own share of the worker's slots: another tenant's
     * deliveries all arrive while the slow one's backlog still drains, and the slow endpoint never has more than
     * perEndpointConcurrency requests in flight. (scripts/bench-webhooks measures the same with latencies.)
     */
    @Test
    void aSlowEndpointDoesNotHoldUpAnotherTenantsDeliveries() throws Exception {
        sink.always("/slow", new WebhookSink.Slow(700));
        register("acme", "/slow", "[\"ACCEPTED\"]");
        register("globex", "/fast", "[\"ACCEPTED\"]");
        List<String> slow = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            slow.add(submit("client-a"));
        }
        List<String> fast = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            fast.add(submit("client-b"));
        }
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(ours("/fast", fast)).hasSize(fast.size()));
        assertThat(ours("/slow", slow).size())
                .as("the slow endpoint's backlog (30 x 700 ms over 4 slots) is not through yet")
                .isLessThan(slow.size());
        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(() -> assertThat(ours("/slow", slow)).hasSize(slow.size()));
        assertThat(sink.maxInFlight("/slow")).isBetween(1, SERVICE.configuration().webhooks.perEndpointConcurrency);
        unregister("acme");
        unregister("globex");
    }

    /**
     * An endpoint that hangs past the timeout on the same host and port as another tenant's (as two tenants of one
     * hosted receiver would be) takes nothing from that tenant: each of its deliveries succeeds at the first attempt,
     * none waits for a connection the hanging one holds.
     */
    @Test
    void aHangingEndpointOnTheSameHostLeavesAnotherTenantsDeliveriesToTheirFirstAttempt() throws Exception {
        sink.always("/stuck", new WebhookSink.Hang());
        register("acme", "/stuck", "[\"ACCEPTED\"]");
        register("globex", "/quick", "[\"ACCEPTED\"]");
        for (int i = 0; i < 12; i++) {
            submit("client-a");
        }
        // Past the first round of hangs: every slot the stuck endpoint may take is taken.
        await().atMost(Duration.ofSeconds(30))
                .until(() -> sink.received("/stuck").size() >= 4);
        List<String> quick = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            quick.add(submit("client-b"));
        }
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(ours("/quick", quick)).hasSize(quick.size()));
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(Sql.count(
                                SERVICE.dataSource(),
                                "SELECT count(*) FROM webhook_deliveries WHERE message_id IN ('"
                                        + String.join("','", quick) + "') AND state = 1 AND attempts = 1"))
                        .as("each at its first attempt")
                        .isEqualTo(quick.size()));
        unregister("acme");
        unregister("globex");
        sink.always("/stuck", WebhookSink.OK);
        sink.release();
    }
}
