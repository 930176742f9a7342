package dev.sendlog.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SubmitContractTest {
    private static final SimulatorConfig FAST =
            SimulatorConfig.builder().latencyMs(0).build();

    private ProviderSimulator simulator;
    private SimulatorClient client;

    private void start(SimulatorConfig config) throws IOException {
        simulator = ProviderSimulator.start(config, 0);
        client = new SimulatorClient(simulator);
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (simulator != null) {
            simulator.close();
        }
    }

    @Test
    void acceptsASubmitWithAnId() throws Exception {
        start(FAST);

        HttpResponse<String> response = client.submit("key-1", "order-1", null);

        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(SimulatorClient.providerId(response)).isEqualTo("p0");
        assertThat(client.keys()).containsExactly("key-1");
    }

    @Test
    void sameKeyTwiceAnswersTheSameIdAndCountsADuplicate() throws Exception {
        start(FAST);

        HttpResponse<String> first = client.submit("key-1", "order-1", null);
        client.submit("key-2", "order-2", null);
        HttpResponse<String> again = client.submit("key-1", "order-1", null);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(SimulatorClient.providerId(again)).isEqualTo(SimulatorClient.providerId(first));
        var stats = client.stats();
        assertThat(stats.path("submits").asLong()).isEqualTo(3);
        assertThat(stats.path("uniqueKeys").asLong()).isEqualTo(2);
        assertThat(stats.path("duplicateSubmits").asLong()).isEqualTo(1);
        assertThat(stats.path("accepted").asLong()).isEqualTo(3);
    }

    @Test
    void idsWrapAroundTheModulus() throws Exception {
        start(FAST.toBuilder().idWrapModulus(3).build());

        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            ids.add(SimulatorClient.providerId(client.submit("key-" + i, null, null)));
        }

        assertThat(ids).containsExactly("p0", "p1", "p2", "p0", "p1", "p2", "p0");
    }

    @Test
    void wrongOrMissingTokenIsUnauthorised() throws Exception {
        start(FAST);
        String body = SimulatorClient.body("+49151", "hi", null, null);

        assertThat(client.submitRaw("wrong-token", "key-1", body).statusCode()).isEqualTo(401);
        assertThat(client.submitRaw(null, "key-1", body).statusCode()).isEqualTo(401);
        assertThat(client.stats().path("submits").asLong()).isZero();
        assertThat(client.keys()).isEmpty();
    }

    @Test
    void missingIdempotencyKeyIsABadRequest() throws Exception {
        start(FAST);

        HttpResponse<String> response =
                client.submitRaw("sim-token", null, SimulatorClient.body("+49151", "hi", null, null));

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("Idempotency-Key");
    }

    @Test
    void missingFieldsAndBadJsonAreBadRequests() throws Exception {
        start(FAST);

        HttpResponse<String> noTo = client.submitRaw("sim-token", "k1", "{\"body\": \"hi\"}");
        HttpResponse<String> noBody = client.submitRaw("sim-token", "k2", "{\"to\": \"+49151\"}");
        HttpResponse<String> notJson = client.submitRaw("sim-token", "k3", "to=+49151");
        HttpResponse<String> badCallback =
                client.submitRaw("sim-token", "k4", SimulatorClient.body("+49151", "hi", null, "not a url"));

        assertThat(noTo.statusCode()).isEqualTo(400);
        assertThat(noTo.body()).contains("'to'");
        assertThat(noBody.statusCode()).isEqualTo(400);
        assertThat(noBody.body()).contains("'body'");
        assertThat(notJson.statusCode()).isEqualTo(400);
        assertThat(badCallback.statusCode()).isEqualTo(400);
        assertThat(client.stats().path("submits").asLong()).isZero();
    }

    @Test
    void permanentErrorRateOneAnswers422WithAText() throws Exception {
        start(FAST.toBuilder().permanentErrorRate(1.0).build());

        HttpResponse<String> response = client.submit("key-1", "order-1", null);

        assertThat(response.statusCode()).isEqualTo(422);
        assertThat(response.body()).isNotBlank();
        assertThat(client.keys()).isEmpty();
        assertThat(client.stats().path("permanentErrors").asLong()).isEqualTo(1);
    }

    @Test
    void transientErrorRateOneAnswers503WithRetryAfterAndRecordsNothing() throws Exception {
        start(FAST.toBuilder().transientErrorRate(1.0).seed(7L).build());

        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            HttpResponse<String> response = client.submit("key-" + i, "order-" + i, null);
            assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
            statuses.add(response.statusCode());
        }

        // 429 is the provider's rate (maxPerSecond), the one refusal a client does not count as a failed attempt.
        assertThat(statuses).containsOnly(503);
        assertThat(client.keys()).isEmpty();
        var stats = client.stats();
        assertThat(stats.path("submits").asLong()).isEqualTo(20);
        assertThat(stats.path("transientErrors").asLong()).isEqualTo(20);
        assertThat(stats.path("uniqueKeys").asLong()).isZero();
        assertThat(stats.path("accepted").asLong()).isZero();
    }

    @Test
    void dropAfterAcceptCutsTheConnectionButRecordsTheSubmit() throws Exception {
        start(FAST.toBuilder().dropAfterAcceptRate(1.0).build());

        assertThatThrownBy(() -> client.submit("key-1", "order-1", null)).isInstanceOf(IOException.class);

        var stats = client.stats();
        assertThat(stats.path("accepted").asLong()).isEqualTo(1);
        assertThat(stats.path("uniqueKeys").asLong()).isEqualTo(1);
        assertThat(stats.path("dropped").asLong()).isEqualTo(1);
        assertThat(client.keys()).containsExactly("key-1");
    }

    @Test
    void aRetryAfterADropGetsTheIdThatWasAssigned() throws Exception {
        start(FAST.toBuilder().dropAfterAcceptRate(1.0).build());
        assertThatThrownBy(() -> client.submit("key-1", "order-1", null)).isInstanceOf(IOException.class);
        simulator.updateConfig(FAST);
        client.submit("key-other", "order-2", null);

        HttpResponse<String> retry = client.submit("key-1", "order-1", null);

        assertThat(retry.statusCode()).isEqualTo(200);
        assertThat(SimulatorClient.providerId(retry)).isEqualTo("p0");
    }

    @Test
    void resetClearsRecordsCountersAndTheIdCounter() throws Exception {
        start(FAST);
        client.submit("key-1", "order-1", null);
        client.submit("key-1", "order-1", null);

        HttpResponse<String> reset = client.send("POST", "/v1/reset", "");

        assertThat(reset.statusCode()).isEqualTo(204);
        assertThat(client.keys()).isEmpty();
        assertThat(client.callbackLog()).isEmpty();
        var stats = client.stats();
        stats.properties()
                .forEach(field ->
                        assertThat(field.getValue().asLong()).as(field.getKey()).isZero());
        assertThat(SimulatorClient.providerId(client.submit("key-1", "order-1", null)))
                .isEqualTo("p0");
    }

    @Test
    void statsNameEveryCounter() throws Exception {
        start(FAST);

        var stats = client.stats();

        assertThat(stats.fieldNames())
                .toIterable()
                .contains(
                        "submits",
                        "uniqueKeys",
                        "duplicateSubmits",
                        "accepted",
                        "transientErrors",
                        "permanentErrors",
                        "dropped",
                        "callbacksSent",
                        "callbacksDelivered",
                        "callbacksFailed");
    }

    @Test
    void unknownRoutesAnswer404() throws Exception {
        start(FAST);

        assertThat(client.get("/v1/nothing").statusCode()).isEqualTo(404);
        assertThat(client.get("/v1/submit").statusCode()).isEqualTo(404);
        assertThat(client.send("DELETE", "/v1/stats", "").statusCode()).isEqualTo(404);
    }

    @Test
    void theSameSeedRepeatsTheSameSequenceOfOutcomes() throws Exception {
        SimulatorConfig config = FAST.toBuilder()
                .transientErrorRate(0.3)
                .permanentErrorRate(0.3)
                .seed(42L)
                .build();

        List<Integer> first = statusesOfTwentySubmits(config);
        List<Integer> second = statusesOfTwentySubmits(config);

        assertThat(second).isEqualTo(first);
        assertThat(first).contains(201, 503, 422);
    }

    private static List<Integer> statusesOfTwentySubmits(SimulatorConfig config) throws Exception {
        List<Integer> statuses = new ArrayList<>();
        try (ProviderSimulator seeded = ProviderSimulator.start(config, 0);
                SimulatorClient seededClient = new SimulatorClient(seeded)) {
            for (int i = 0; i < 20; i++) {
                statuses.add(seededClient.submit("key-" + i, null, null).statusCode());
            }
        }
        return statuses;
    }

    @Test
    void uniformLatencyStaysWithinTheJitter() {
        ActiveConfig active = ActiveConfig.of(SimulatorConfig.builder()
                .latencyMs(20)
                .latencyJitterMs(5)
                .latencyDistribution(LatencyDistribution.UNIFORM)
                .seed(1L)
                .build());

        List<Long> samples = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            samples.add(active.sampleLatencyMs());
        }

        assertThat(samples).allSatisfy(ms -> assertThat(ms).isBetween(15L, 25L)).contains(15L, 25L);
    }
}
