package dev.sendlog.service.send;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sendlog.service.log.EffectKeys;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.simulator.ProviderSimulator;
import dev.sendlog.simulator.ReceiptMode;
import dev.sendlog.simulator.SimulatorConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Routes and failover between gateways (issue 29, invariant 18), each gateway a provider over real HTTP: a routed
 * message passes to the next gateway of its route only when the one it is at certainly did not take it (a refused
 * connection, a 503, the gateway marked down and not called), never after a timeout, and never when it named its
 * gateway; it is charged once, and its history shows every gateway tried.
 */
class FailoverTest {
    private static final SimulatorConfig QUIET = SimulatorConfig.defaults().toBuilder()
            .latencyMs(5)
            .receiptMode(ReceiptMode.NONE)
            .build();
    /** Answers every submit 503: a refusal before acceptance. */
    private static final ProviderSimulator BUSY =
            simulator(QUIET.toBuilder().transientErrorRate(1.0).build());
    /** Answers every submit after the gateway's requestTimeoutMs: the outcome is unknown (it does take them). */
    private static final ProviderSimulator SLOW =
            simulator(QUIET.toBuilder().latencyMs(1_500).build());
    /** No one listens here: every connection is refused. */
    private static final int CLOSED_PORT = dev.sendlog.testkit.Ports.free();

    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
                    "pipeline.retryBase", "100ms", "pipeline.retryCap", "200ms", "pipeline.maxAttempts", "3")
            .simulator(QUIET)
            .configure(FailoverTest::gatewaysAndRoutes);

    private static ProviderSimulator simulator(SimulatorConfig config) {
        try {
            return ProviderSimulator.start(config, 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void gatewaysAndRoutes(ObjectNode config) {
        ObjectNode gateways = (ObjectNode) config.get("gateways");
        gateway(gateways, "down", "http://127.0.0.1:" + CLOSED_PORT)
                .put("downAfterFailures", 3)
                .put("probeAfter", "1h");
        gateway(gateways, "busy", BUSY.baseUrl()).put("downAfterFailures", 0);
        gateway(gateways, "slow", SLOW.baseUrl()).put("downAfterFailures", 0).put("requestTimeoutMs", 300);
        ArrayNode routes = config.putArray("routes");
        route(routes, "+4410", "down", "sim");
        route(routes, "+4420", "busy", "sim");
        route(routes, "+4430", "slow", "sim");
    }

    private static ObjectNode gateway(ObjectNode gateways, String name, String baseUrl) {
        return gateways.putObject(name)
                .put("baseUrl", baseUrl)
                .put("token", "sim-token")
                .put("callbackSecret", "sim-secret")
                .put("vocabulary", "smpp");
    }

    private static void route(ArrayNode routes, String prefix, String... gateways) {
        ObjectNode route = routes.addObject().put("prefix", prefix);
        for (String g : gateways) {
            route.withArray("gateways").add(g);
        }
    }

    @AfterAll
    static void stopProviders() {
        BUSY.close();
        SLOW.close();
    }

    private static List<String> submit(String prefix, int n, String gateway) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String to = prefix + String.format("%07d", (int) (Math.random() * 9_000_000) + i);
            String body = "{\"to\":\"" + to + "\",\"body\":\"code " + i + "\""
                    + (gateway == null ? "" : ",\"gateway\":\"" + gateway + "\"") + "}";
            ApiResponse r = SERVICE.api().post("/v1/messages", "client-a", body);
            assertThat(r.status()).as(r.raw()).isEqualTo(202);
            ids.add(r.json().get("id").asText());
        }
        return ids;
    }

    private static List<JsonNode> failovers(String id) {
        return Messages.history(SERVICE, id).stream()
                .filter(e -> e.get("type").asText().equals("REDRIVEN")
                        && e.get("data").get("reason").asText().equals("FAILED_OVER"))
                .toList();
    }

    private static void awaitSent(List<String> ids) {
        for (String id : ids) {
            Messages.awaitStatus(SERVICE, id, "SENT", Duration.ofSeconds(60));
        }
    }

    /**
     * Waits until the message's attempts are spent (DEAD, or UNKNOWN when a claim at the limit expired), moving the test
     * clock so its retries come due.
     */
    private static void awaitEnded(String id) {
        Messages.awaitAdvancing(
                SERVICE,
                Duration.ofMillis(500),
                Duration.ofSeconds(90),
                () -> assertThat(SERVICE.api()
                                .get("/v1/messages/" + id, "client-a")
                                .json()
                                .get("status")
                                .asText())
                        .isIn("DEAD", "UNKNOWN"));
    }

    private static String key(String id) {
        return EffectKeys.providerSubmit(UUID.fromString(id));
    }

    @Test
    void aRefusedConnectionPassesTheMessageToTheNextGatewayOfItsRouteChargedOnce() {
        List<String> ids = submit("+4410", 8, null);
        awaitSent(ids);
        for (String id : ids) {
            JsonNode message =
                    SERVICE.api().get("/v1/messages/" + id, "client-a").json();
            assertThat(message.get("gateway").asText()).as("where it went out").isEqualTo("sim");
            List<JsonNode> moves = failovers(id);
            assertThat(moves).hasSize(1);
            assertThat(moves.getFirst().get("data").get("gateway").asText()).isEqualTo("sim");
            assertThat(moves.getFirst().get("data").get("attempt").asInt())
                    .as("the same attempt")
                    .isEqualTo(1);
            assertThat(Messages.events(SERVICE, id, "ATTEMPT_FAILED"))
                    .as("no attempt used")
                    .isZero();
            JsonNode accepted = Messages.history(SERVICE, id).stream()
                    .filter(e -> e.get("type").asText().equals("PROVIDER_ACCEPTED"))
                    .findFirst()
                    .orElseThrow();
            assertThat(accepted.get("data").get("gateway").asText()).isEqualTo("sim");
            assertThat(Messages.ledgerRows(SERVICE, id)).isEqualTo(1);
            assertThat(SERVICE.simulator().keys()).contains(key(id));
        }
        // After three refused connections in a row the gateway is marked down: later messages pass on without a call.
        List<String> later = submit("+4410", 3, null);
        awaitSent(later);
        for (String id : later) {
            assertThat(failovers(id).getFirst().get("data").get("error").asText())
                    .contains("marked down");
        }
        assertThat(SERVICE.healthy("gateways"))
                .as("a gateway down is no failure of this process")
                .isTrue();
        assertThat(SERVICE.healthMessage("gateways")).startsWith("marked down: down (");
    }

    @Test
    void aRefusalBeforeAcceptancePassesTheMessageOnAndTheRefusingProviderHasNone() {
        List<String> ids = submit("+4420", 6, null);
        awaitSent(ids);
        for (String id : ids) {
            assertThat(SERVICE.api()
                            .get("/v1/messages/" + id, "client-a")
                            .json()
                            .get("gateway")
                            .asText())
                    .isEqualTo("sim");
            assertThat(failovers(id)).hasSize(1);
            assertThat(failovers(id).getFirst().get("data").get("error").asText())
                    .contains("503");
            assertThat(Messages.ledgerRows(SERVICE, id)).isEqualTo(1);
        }
        assertThat(BUSY.stats().submits()).as("it was asked").isGreaterThanOrEqualTo(ids.size());
        assertThat(BUSY.keys()).as("and took none").isEmpty();
    }

    @Test
    void aTimeoutNeverMovesTheMessageTheGatewayMayHaveIt() {
        List<String> ids = submit("+4430", 4, null);
        for (String id : ids) {
            // Every attempt times out (the provider answers after the gateway's timeout, having taken it): the attempts
            // are spent on this gateway, and the message ends DEAD there (or UNKNOWN), never sent through another.
            awaitEnded(id);
            assertThat(SERVICE.api()
                            .get("/v1/messages/" + id, "client-a")
                            .json()
                            .get("gateway")
                            .asText())
                    .isEqualTo("slow");
            assertThat(failovers(id)).isEmpty();
            assertThat(Messages.events(SERVICE, id, "ATTEMPT_FAILED")).isPositive();
            // The slow provider records a submit when it answers, after its latency: by then the attempts may be spent.
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(SLOW.keys())
                            .as("the slow provider has it")
                            .contains(key(id)));
            assertThat(SERVICE.simulator().keys())
                    .as("no second gateway was asked")
                    .doesNotContain(key(id));
            assertThat(Messages.ledgerRows(SERVICE, id))
                    .as("never charged: no acceptance was recorded")
                    .isZero();
        }
    }

    @Test
    void aMessageThatNamesItsGatewaySkipsRoutingAndStaysThere() {
        List<String> ids = submit("+4420", 3, "busy");
        for (String id : ids) {
            awaitEnded(id);
            assertThat(failovers(id)).isEmpty();
            assertThat(SERVICE.simulator().keys()).doesNotContain(key(id));
        }
    }
}
