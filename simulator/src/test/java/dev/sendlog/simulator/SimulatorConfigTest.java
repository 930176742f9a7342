package dev.sendlog.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

class SimulatorConfigTest {

    @Test
    void absentFieldsKeepTheirDefaults() throws Exception {
        SimulatorConfig config =
                Json.MAPPER.readValue("{\"latencyMs\": 5, \"receiptMode\": \"DUPLICATED\"}", SimulatorConfig.class);

        assertThat(config.latencyMs()).isEqualTo(5);
        assertThat(config.receiptMode()).isEqualTo(ReceiptMode.DUPLICATED);
        assertThat(config)
                .isEqualTo(SimulatorConfig.defaults().toBuilder()
                        .latencyMs(5)
                        .receiptMode(ReceiptMode.DUPLICATED)
                        .build());
    }

    @Test
    void defaultsAreTheDocumentedOnes() {
        SimulatorConfig config = SimulatorConfig.defaults();

        assertThat(config.token()).isEqualTo("sim-token");
        assertThat(config.callbackSecret()).isEqualTo("sim-secret");
        assertThat(config.latencyMs()).isEqualTo(20);
        assertThat(config.idWrapModulus()).isEqualTo(1_000_000_000L);
        assertThat(config.receiptMode()).isEqualTo(ReceiptMode.FINAL);
        assertThat(config.intermediateReceipts()).isEqualTo(1);
        assertThat(config.receiptDelayMs()).isEqualTo(50);
        assertThat(config.vocabulary()).isEqualTo(Vocabulary.SMPP);
        assertThat(config.echoReference()).isTrue();
        assertThat(config.callbackConcurrency()).isEqualTo(64);
        assertThat(config.callbackMaxAttempts()).isEqualTo(10);
    }

    @Test
    void aTypoFails() {
        assertThatThrownBy(() -> Json.MAPPER.readValue("{\"latencyMS\": 5}", SimulatorConfig.class))
                .isInstanceOf(UnrecognizedPropertyException.class);
    }

    @Test
    void aRateOutsideZeroToOneFails() {
        assertThatThrownBy(() -> Json.MAPPER.readValue("{\"transientErrorRate\": 1.5}", SimulatorConfig.class))
                .hasMessageContaining("transientErrorRate");
    }

    @Test
    void configRoundTripsThroughJson() throws Exception {
        SimulatorConfig config =
                SimulatorConfig.builder().seed(3L).vocabulary(Vocabulary.JSON).build();

        String json = Json.MAPPER.writeValueAsString(config);

        assertThat(Json.MAPPER.readValue(json, SimulatorConfig.class)).isEqualTo(config);
    }

    @Test
    void putConfigChangesBehaviourForTheNextSubmits() throws Exception {
        try (ProviderSimulator simulator = ProviderSimulator.start(
                        SimulatorConfig.builder().latencyMs(0).build(), 0);
                SimulatorClient client = new SimulatorClient(simulator)) {
            assertThat(client.submit("key-1", null, null).statusCode()).isEqualTo(201);

            HttpResponse<String> put =
                    client.send("PUT", "/v1/config", "{\"latencyMs\": 0, \"permanentErrorRate\": 1.0}");

            assertThat(put.statusCode()).isEqualTo(200);
            assertThat(simulator.config().permanentErrorRate()).isEqualTo(1.0);
            assertThat(client.submit("key-2", null, null).statusCode()).isEqualTo(422);
            assertThat(Json.MAPPER
                            .readTree(client.get("/v1/config").body())
                            .path("permanentErrorRate")
                            .asDouble())
                    .isEqualTo(1.0);
        }
    }

    /** Issue 24, item 16: GET /v1/config returned the token and the callback secret to anyone who reached it. */
    @Test
    void theConfigurationIsReadWithoutItsSecretsAndAPutKeepsThem() throws Exception {
        SimulatorConfig original = SimulatorConfig.builder()
                .latencyMs(0)
                .token("tok-4711-private")
                .callbackSecret("sec-0815-private")
                .build();
        try (ProviderSimulator simulator = ProviderSimulator.start(original, 0);
                SimulatorClient client = new SimulatorClient(simulator)) {
            HttpResponse<String> got = client.get("/v1/config");
            assertThat(got.statusCode()).isEqualTo(200);
            assertThat(got.body()).doesNotContain("tok-4711-private").doesNotContain("sec-0815-private");
            assertThat(Json.MAPPER.readTree(got.body()).has("token")).isFalse();
            assertThat(Json.MAPPER.readTree(got.body()).has("callbackSecret")).isFalse();
            assertThat(Json.MAPPER.readTree(got.body()).path("latencyMs").asInt())
                    .isZero();

            // What was read, changed and put back keeps the secrets it did not show.
            HttpResponse<String> put = client.send(
                    "PUT",
                    "/v1/config",
                    got.body().replace("\"permanentErrorRate\":0.0", "\"permanentErrorRate\":1.0"));
            assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
            assertThat(put.body()).doesNotContain("tok-4711-private").doesNotContain("sec-0815-private");
            assertThat(simulator.config().permanentErrorRate()).isEqualTo(1.0);
            assertThat(simulator.config().token()).isEqualTo("tok-4711-private");
            assertThat(simulator.config().callbackSecret()).isEqualTo("sec-0815-private");

            assertThat(client.send("PUT", "/v1/config", "{\"latencyMs\": 0, \"token\": \"tok-new\"}")
                            .statusCode())
                    .isEqualTo(200);
            assertThat(simulator.config().token()).isEqualTo("tok-new");
            assertThat(simulator.config().callbackSecret()).isEqualTo("sec-0815-private");
            assertThat(client.send("PUT", "/v1/config", "[1]").statusCode()).isEqualTo(400);
        }
    }

    @Test
    void putConfigWithATypoIsABadRequestAndChangesNothing() throws Exception {
        SimulatorConfig original = SimulatorConfig.builder().latencyMs(0).build();
        try (ProviderSimulator simulator = ProviderSimulator.start(original, 0);
                SimulatorClient client = new SimulatorClient(simulator)) {

            HttpResponse<String> put = client.send("PUT", "/v1/config", "{\"permanentErrorRat\": 1.0}");

            assertThat(put.statusCode()).isEqualTo(400);
            assertThat(put.body()).contains("permanentErrorRat");
            assertThat(simulator.config()).isEqualTo(original);
        }
    }
}
