package dev.sendlog.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** API.md's "Status query" as the simulator answers it: the provider knows its outcomes whatever became of callbacks. */
class StatusQueryTest {
    private static final SimulatorConfig FAST = SimulatorConfig.builder()
            .latencyMs(0)
            .receiptDelayMs(0)
            .receiptSpacingMs(1)
            .build();

    private ProviderSimulator simulator;
    private SimulatorClient client;
    private CallbackReceiver receiver;

    private void start(SimulatorConfig config) throws Exception {
        receiver = CallbackReceiver.start();
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
        if (receiver != null) {
            receiver.close();
        }
    }

    private JsonNode answer(String key) throws Exception {
        var response = client.status("sim-token", key);
        assertThat(response.statusCode()).isEqualTo(200);
        return Json.MAPPER.readTree(response.body());
    }

    @Test
    void aKeyNeverAcceptedIsAnswered404() throws Exception {
        start(FAST);
        assertThat(client.status("sim-token", "never-sent").statusCode()).isEqualTo(404);
    }

    @Test
    void aQueryWithoutTheTokenIsRefused() throws Exception {
        start(FAST);
        client.submit("key-1", "order-1", receiver.url());
        assertThat(client.status(null, "key-1").statusCode()).isEqualTo(401);
        assertThat(client.status("wrong", "key-1").statusCode()).isEqualTo(401);
    }

    @Test
    void withCallbacksSwitchedOffTheQueryStillAnswersTheFinalStatus() throws Exception {
        start(FAST.toBuilder().receiptMode(ReceiptMode.NONE).build());
        var submitted = client.submit("key-1", "order-1", receiver.url());
        String providerId = SimulatorClient.providerId(submitted);
        await().atMost(Duration.ofSeconds(5))
                .until(() -> "DELIVRD".equals(answer("key-1").path("status").asText()));
        JsonNode answer = answer("key-1");
        assertThat(answer.path("id").asText()).isEqualTo(providerId);
        assertThat(answer.path("timestamp").asText()).matches("\\d{12}");
        assertThat(receiver.accepted()).isEmpty();
        assertThat(client.stats().path("submits").asLong())
                .as("a query is not a submit")
                .isEqualTo(1);
        assertThat(client.stats().path("statusQueries").asLong()).isPositive();
    }

    @Test
    void theQueryAnswersWhatTheCallbacksSaidInTheJsonVocabulary() throws Exception {
        start(FAST.toBuilder()
                .vocabulary(Vocabulary.JSON)
                .undeliveredRate(1.0)
                .seed(7L)
                .build());
        client.submit("key-1", "order-1", receiver.url());
        await().atMost(Duration.ofSeconds(5)).until(() -> receiver.accepted().size() == 2);
        JsonNode answer = answer("key-1");
        assertThat(answer.path("status").asText())
                .isEqualTo(receiver.acceptedStatuses().getLast());
        assertThat(answer.path("errorCode").asText()).isNotBlank();
    }

    @Test
    void aProviderThatNeverLearnsAFinalAnswersItsIntermediateStatus() throws Exception {
        start(FAST.toBuilder()
                .receiptMode(ReceiptMode.INTERMEDIATE_ONLY)
                .intermediateReceipts(2)
                .build());
        client.submit("key-1", "order-1", receiver.url());
        await().atMost(Duration.ofSeconds(5)).until(() -> receiver.accepted().size() == 2);
        assertThat(answer("key-1").path("status").asText()).isEqualTo("ACCEPTD");
    }

    @Test
    void lostCallbacksAreNeverSentButTheirOutcomeIsKnown() throws Exception {
        start(FAST.toBuilder().callbackLossRate(1.0).build());
        client.submit("key-1", "order-1", receiver.url());
        await().atMost(Duration.ofSeconds(5))
                .until(() -> "DELIVRD".equals(answer("key-1").path("status").asText()));
        assertThat(receiver.accepted()).isEmpty();
        assertThat(client.callbackLog()).isEmpty();
        assertThat(client.stats().path("callbacksLost").asLong()).isEqualTo(1);
    }

    @Test
    void queryErrorsAreTransient503s() throws Exception {
        start(FAST.toBuilder().queryErrorRate(1.0).build());
        client.submit("key-1", "order-1", receiver.url());
        var response = client.status("sim-token", "key-1");
        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.headers().firstValue("Retry-After")).contains("1");
    }
}
