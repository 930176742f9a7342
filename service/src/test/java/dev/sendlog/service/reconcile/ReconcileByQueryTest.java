package dev.sendlog.service.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sendlog.service.log.EffectKeys;
import dev.sendlog.service.receipts.CallbackSignature;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import dev.sendlog.simulator.ReceiptMode;
import dev.sendlog.simulator.SimulatorConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 32 end to end against the simulator (real PostgreSQL, Redis and HTTP): with receipts lost on purpose, the
 * reconciler asks the provider, and every message whose provider knows its outcome ends with that outcome, learned by
 * query, never UNKNOWN; only a message the provider cannot place is UNKNOWN at the end of the window.
 */
class ReconcileByQueryTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SimulatorConfig CALLBACKS_OFF = SimulatorConfig.defaults().toBuilder()
            .latencyMs(5)
            .receiptMode(ReceiptMode.NONE)
            .intermediateReceipts(1)
            .receiptDelayMs(10)
            .receiptSpacingMs(5)
            .build();

    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
                    "pipeline.reconcileWindow",
                    "1h",
                    "pipeline.reconcile.queryAfter",
                    "10m",
                    "pipeline.reconcile.grace",
                    "5m",
                    "pipeline.reconcile.retryEvery",
                    "1m",
                    "gateways.sim.statusQuery",
                    "true",
                    "gateways.sim.queriesPerSecond",
                    "200",
                    "receipts.holdWindow",
                    "10m")
            .simulator(CALLBACKS_OFF);

    @AfterEach
    void normal() {
        SERVICE.simulator().updateConfig(CALLBACKS_OFF);
    }

    private static JsonNode message(String id) {
        return SERVICE.api().get("/v1/messages/" + id, "support-1").json();
    }

    /** What the provider itself says of a message, asked directly (the truth the pipeline must end with). */
    private static String providerStatus(String id) {
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create(SERVICE.simulator().baseUrl() + "/v1/submit/"
                                    + EffectKeys.providerSubmit(UUID.fromString(id))))
                            .header("Authorization", "Bearer sim-token")
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            return JSON.readTree(r.body()).get("status").asText();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static long counter(String name) {
        return SERVICE.admin()
                .get("/metrics", null)
                .json()
                .path("counters")
                .path(name)
                .path("count")
                .asLong();
    }

    private static void awaitSent(List<String> ids) {
        for (String id : ids) {
            Messages.awaitStatus(SERVICE, id, "SENT", Duration.ofSeconds(30));
        }
    }

    private static void awaitFinalByQuery(List<String> ids, Duration atMost) {
        Messages.awaitAdvancing(SERVICE, Duration.ofMinutes(1), atMost, () -> {
            for (String id : ids) {
                assertThat(message(id).get("status").asText()).as(id).isIn("DELIVERED", "UNDELIVERED");
            }
        });
    }

    private static List<JsonNode> receipts(String id) {
        return Messages.history(SERVICE, id).stream()
                .filter(e -> e.get("type").asText().equals("RECEIPT"))
                .toList();
    }

    @Test
    void withCallbacksSwitchedOffEveryMessageEndsWithTheProvidersStatusLearnedByQueryAndNoneIsSubmittedTwice() {
        SERVICE.simulator()
                .updateConfig(
                        CALLBACKS_OFF.toBuilder().undeliveredRate(0.3).seed(32L).build());
        // A status webhook for the finals (issue 27): a final learned by asking owes its delivery as one told does.
        String hook = "{\"url\":\"https://203.0.113.9/hooks\",\"events\":[\"DELIVERED\",\"UNDELIVERED\"]}";
        assertThat(SERVICE.api()
                        .send(
                                SERVICE.api()
                                        .builder("/v1/webhook", "client-a", "Content-Type", "application/json")
                                        .PUT(HttpRequest.BodyPublishers.ofString(hook, StandardCharsets.UTF_8)),
                                hook)
                        .status())
                .isEqualTo(200);
        long submitsBefore = SERVICE.simulator().stats().submits();
        List<String> ids = Messages.submit(SERVICE, 30);
        awaitSent(ids);
        awaitFinalByQuery(ids, Duration.ofSeconds(60));
        for (String id : ids) {
            String providerSays = providerStatus(id);
            assertThat(message(id).get("status").asText())
                    .as(id)
                    .isEqualTo(providerSays.equals("DELIVRD") ? "DELIVERED" : "UNDELIVERED");
            List<JsonNode> receipts = receipts(id);
            JsonNode last = receipts.getLast();
            assertThat(last.get("data").get("source").asText())
                    .as("the history shows it was asked, not told")
                    .isEqualTo("QUERY");
            assertThat(last.get("actor").asText()).startsWith("reconciler-");
            assertThat(last.get("data").get("providerStatus").asText()).isEqualTo(providerSays);
            assertThat(Sql.count(
                            SERVICE.dataSource(),
                            "SELECT count(*) FROM webhook_deliveries WHERE message_id = '" + id + "' AND seq = "
                                    + last.get("seq").asInt() + " AND status = '"
                                    + message(id).get("status").asText() + "'"))
                    .as("the final learned by query owes its webhook delivery")
                    .isEqualTo(1);
        }
        SERVICE.api().send(SERVICE.api().builder("/v1/webhook", "client-a").DELETE());
        assertThat(SERVICE.simulator().stats().submits() - submitsBefore)
                .as("one submit per message")
                .isEqualTo(30);
        assertThat(SERVICE.simulator().stats().duplicateSubmits()).isZero();
        String in = "'" + String.join("','", ids) + "'";
        assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM ledger WHERE effect_key IN (" + in + ")"))
                .isEqualTo(30);
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT count(*) FROM message_events WHERE type = 10 AND message_id IN (" + in + ")"))
                .as("none UNKNOWN")
                .isZero();
        assertThat(counter("reconcile.queries")).isGreaterThanOrEqualTo(30);
        assertThat(counter("reconcile.queries.answered"))
                .as("every message's final was an answer")
                .isGreaterThanOrEqualTo(30);
        assertThat(counter("receipts.finals.by.query.sim")).isGreaterThanOrEqualTo(30);
        assertThat(SERVICE.admin()
                        .get("/metrics", null)
                        .json()
                        .path("gauges")
                        .path("reconcile.finals.by.query.share.sim")
                        .path("value")
                        .asDouble())
                .isGreaterThan(0.0);
        assertThat(SERVICE.healthy("reconcile"))
                .as("asking is reported, never the node's health")
                .isTrue();
        assertThat(SERVICE.healthMessage("reconcile")).contains("learns most finals by query");
    }

    @Test
    void withHalfTheCallbacksForgottenAndHalfTheSubmitAnswersCutEveryMessageEndsWithTheProvidersStatusSubmittedOnce() {
        SERVICE.simulator()
                .updateConfig(CALLBACKS_OFF.toBuilder()
                        .receiptMode(ReceiptMode.FINAL)
                        .callbackLossRate(0.5)
                        .dropAfterAcceptRate(0.5)
                        .undeliveredRate(0.3)
                        .seed(3232L)
                        .build());
        long submitsBefore = SERVICE.simulator().stats().submits();
        long duplicatesBefore = SERVICE.simulator().stats().duplicateSubmits();
        List<String> ids = Messages.submit(SERVICE, 40);
        awaitFinalByQuery(ids, Duration.ofSeconds(90));
        long byQuery = 0;
        for (String id : ids) {
            String providerSays = providerStatus(id);
            assertThat(message(id).get("status").asText())
                    .as(id)
                    .isEqualTo(providerSays.equals("DELIVRD") ? "DELIVERED" : "UNDELIVERED");
            assertThat(Messages.ledgerRows(SERVICE, id)).isEqualTo(1);
            if (receipts(id).stream()
                    .anyMatch(r -> r.get("data").path("source").asText().equals("QUERY"))) {
                byQuery++;
            }
        }
        assertThat(SERVICE.simulator().stats().submits() - submitsBefore)
                .as("one submit per message")
                .isEqualTo(40);
        assertThat(SERVICE.simulator().stats().duplicateSubmits() - duplicatesBefore)
                .isZero();
        assertThat(byQuery)
                .as("the forgotten callbacks' outcomes were asked for")
                .isPositive()
                .isLessThan(40);
    }

    @Test
    void aFailedQueryIsAskedAgainAtTheMessagesNextPoint() {
        SERVICE.simulator()
                .updateConfig(CALLBACKS_OFF.toBuilder().queryErrorRate(1.0).build());
        List<String> ids = Messages.submit(SERVICE, 5);
        awaitSent(ids);
        long failedBefore = counter("reconcile.queries.failed");
        Messages.awaitAdvancing(
                SERVICE,
                Duration.ofMinutes(1),
                Duration.ofSeconds(30),
                () -> assertThat(counter("reconcile.queries.failed") - failedBefore)
                        .isGreaterThanOrEqualTo(5));
        for (String id : ids) {
            assertThat(message(id).get("status").asText()).isEqualTo("SENT");
        }
        SERVICE.simulator().updateConfig(CALLBACKS_OFF);
        awaitFinalByQuery(ids, Duration.ofSeconds(60));
        for (String id : ids) {
            assertThat(message(id).get("status").asText()).isEqualTo("DELIVERED");
        }
    }

    @Test
    void aMessageTheProviderStillCannotPlaceAtTheEndOfTheWindowIsUnknownAndALateFinalStillWins() {
        SERVICE.simulator()
                .updateConfig(CALLBACKS_OFF.toBuilder()
                        .receiptMode(ReceiptMode.INTERMEDIATE_ONLY)
                        .build());
        List<String> ids = Messages.submit(SERVICE, 5);
        for (String id : ids) {
            Messages.awaitStatus(SERVICE, id, "IN_TRANSIT", Duration.ofSeconds(30));
        }
        long queriesBefore = counter("reconcile.queries");
        long unknownBefore = counter("reconcile.unknown");
        // Past the window's end, short of the grace: the timers' next check asks one last time, and the answer (still
        // only an intermediate) makes the message UNKNOWN without waiting for the grace to end.
        SERVICE.clock().advance(Duration.ofMinutes(61));
        for (String id : ids) {
            Messages.awaitStatus(SERVICE, id, "UNKNOWN", Duration.ofSeconds(30));
        }
        assertThat(counter("reconcile.queries") - queriesBefore)
                .as("asked before it was called unknown")
                .isGreaterThanOrEqualTo(5);
        assertThat(counter("reconcile.unknown") - unknownBefore)
                .as("still unknown after asking, counted")
                .isEqualTo(5);
        String in = "'" + String.join("','", ids) + "'";
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT count(*) FROM message_events WHERE status = 3 AND tenant = 'acme' "
                                + "AND message_id IN (" + in + ")"))
                .as("found by search as UNKNOWN")
                .isEqualTo(5);
        for (String id : ids) {
            List<JsonNode> history = Messages.history(SERVICE, id);
            JsonNode unknown = history.stream()
                    .filter(e -> e.get("type").asText().equals("OUTCOME_UNKNOWN"))
                    .findFirst()
                    .orElseThrow();
            assertThat(unknown.get("data").get("reason").asText()).contains("status query");
        }
        String late = ids.getFirst();
        String body = "{\"id\":\"" + message(late).get("providerId").asText() + "\",\"reference\":\"" + late
                + "\",\"status\":\"DELIVRD\",\"timestamp\":\"2611300931\"}";
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ApiResponse r = SERVICE.api()
                .postBytes(
                        "/v1/callbacks/sim",
                        null,
                        "application/json",
                        bytes,
                        "X-Signature",
                        CallbackSignature.sign("sim-secret", bytes));
        assertThat(r.status()).isEqualTo(200);
        Messages.awaitStatus(SERVICE, late, "DELIVERED", Duration.ofSeconds(30));
    }

    @Test
    void anAnswerWithAnUnknownWordIsParkedWithItsRawBodyLikeACallback() {
        SERVICE.simulator()
                .updateConfig(CALLBACKS_OFF.toBuilder().unknownStatusRate(1.0).build());
        String id = Messages.submitOne(SERVICE, Messages.recipient());
        Messages.awaitStatus(SERVICE, id, "SENT", Duration.ofSeconds(30));
        Messages.awaitAdvancing(
                SERVICE,
                Duration.ofMinutes(1),
                Duration.ofSeconds(30),
                () -> assertThat(Sql.count(
                                SERVICE.dataSource(),
                                "SELECT count(*) FROM parked_input WHERE message_id = '" + id + "'"))
                        .isPositive());
        JsonNode parked =
                SERVICE.api().get("/v1/admin/parked?limit=50", "admin-1").json();
        boolean found = false;
        for (JsonNode p : parked.get("items")) {
            if (id.equals(p.path("messageId").asText())) {
                found = true;
                assertThat(p.path("reason").asText())
                        .contains("unmapped status")
                        .contains("status query");
                assertThat(p.path("body").asText()).contains("MYSTERY_STATE");
            }
        }
        assertThat(found).as(parked.toString()).isTrue();
        assertThat(Set.of("SENT", "IN_TRANSIT", "UNKNOWN"))
                .contains(message(id).get("status").asText());
    }
}
