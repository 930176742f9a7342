package dev.sendlog.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CallbackTest {
    private static final SimulatorConfig FAST = SimulatorConfig.builder()
            .latencyMs(0)
            .receiptDelayMs(0)
            .receiptSpacingMs(1)
            .build();

    private ProviderSimulator simulator;
    private SimulatorClient client;
    private CallbackReceiver receiver;

    private void start(SimulatorConfig config) throws IOException {
        start(config, CallbackReceiver.start());
    }

    private void start(SimulatorConfig config, CallbackReceiver callbackReceiver) throws IOException {
        receiver = callbackReceiver;
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

    private String submit(String key, String reference) throws Exception {
        var response = client.submit(key, reference, receiver.url());
        assertThat(response.statusCode()).isIn(200, 201);
        return SimulatorClient.providerId(response);
    }

    private List<String> statusesOfOneMessage(ReceiptMode mode, int intermediates, int expectedCallbacks)
            throws Exception {
        start(FAST.toBuilder()
                .receiptMode(mode)
                .intermediateReceipts(intermediates)
                .build());
        submit("key-1", "order-1");
        await().atMost(Duration.ofSeconds(10)).until(() -> receiver.accepted().size() == expectedCallbacks);
        return receiver.acceptedStatuses();
    }

    @Test
    void callbackIsSignedWithHmacOverTheRawBody() throws Exception {
        start(FAST.toBuilder().callbackSecret("s3cret").build());
        String providerId = submit("key-1", "order-1");

        await().atMost(Duration.ofSeconds(10)).until(() -> receiver.accepted().size() == 2);

        for (CallbackReceiver.Received callback : receiver.received()) {
            assertThat(callback.signature()).isEqualTo(HmacForTests.sha256Hex("s3cret", callback.rawBody()));
            assertThat(callback.signature()).matches("sha256=[0-9a-f]{64}");
            assertThat(callback.contentType()).isEqualTo("application/json");
            assertThat(callback.json().path("id").asText()).isEqualTo(providerId);
            assertThat(callback.json().path("reference").asText()).isEqualTo("order-1");
            assertThat(callback.json().has("errorCode")).isFalse();
        }
    }

    @Test
    void finalModeSendsIntermediatesThenTheFinal() throws Exception {
        assertThat(statusesOfOneMessage(ReceiptMode.FINAL, 2, 3)).containsExactly("ENROUTE", "ACCEPTD", "DELIVRD");
    }

    @Test
    void intermediateOnlyModeNeverSendsAFinal() throws Exception {
        assertThat(statusesOfOneMessage(ReceiptMode.INTERMEDIATE_ONLY, 2, 2)).containsExactly("ENROUTE", "ACCEPTD");
        assertThat(client.stats().path("callbacksSent").asLong()).isEqualTo(2);
    }

    @Test
    void duplicatedModeSendsTheSameFinalTwice() throws Exception {
        assertThat(statusesOfOneMessage(ReceiptMode.DUPLICATED, 1, 3)).containsExactly("ENROUTE", "DELIVRD", "DELIVRD");
        List<CallbackReceiver.Received> received = receiver.accepted();
        assertThat(received.get(2).rawBody()).isEqualTo(received.get(1).rawBody());
    }

    @Test
    void outOfOrderModeSendsTheFinalBeforeAnIntermediateWithAnEarlierTimestamp() throws Exception {
        start(FAST.toBuilder()
                .receiptMode(ReceiptMode.OUT_OF_ORDER)
                .intermediateReceipts(1)
                .vocabulary(Vocabulary.JSON)
                .receiptSpacingMs(10)
                .build());
        submit("key-1", "order-1");

        await().atMost(Duration.ofSeconds(10)).until(() -> receiver.accepted().size() == 2);

        List<CallbackReceiver.Received> received = receiver.accepted();
        assertThat(receiver.acceptedStatuses()).containsExactly("delivered", "queued");
        Instant finalAt = Instant.parse(received.get(0).json().path("timestamp").asText());
        Instant intermediateAt =
                Instant.parse(received.get(1).json().path("timestamp").asText());
        assertThat(intermediateAt).isBefore(finalAt);
    }

    @Test
    void noneModeSendsNothing() throws Exception {
        start(FAST.toBuilder().receiptMode(ReceiptMode.NONE).build());

        submit("key-1", "order-1");

        assertThat(client.callbackLog()).isEmpty();
        assertThat(client.stats().path("callbacksSent").asLong()).isZero();
    }

    @Test
    void aDuplicateSubmitSchedulesNoFurtherReceipts() throws Exception {
        start(FAST);

        submit("key-1", "order-1");
        submit("key-1", "order-1");

        assertThat(client.callbackLog()).hasSize(2);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> client.stats().path("callbacksDelivered").asLong() == 2);
        assertThat(receiver.received()).hasSize(2);
    }

    @Test
    void smppTimestampsAreYyMMddHHmmssInUtc() throws Exception {
        start(FAST.toBuilder().vocabulary(Vocabulary.SMPP).build());
        Instant before = Instant.now().minusSeconds(1);
        submit("key-1", "order-1");

        await().atMost(Duration.ofSeconds(10)).until(() -> receiver.accepted().size() == 2);

        for (CallbackReceiver.Received callback : receiver.accepted()) {
            String timestamp = callback.json().path("timestamp").asText();
            assertThat(timestamp).matches("\\d{12}");
            LocalDateTime parsed = LocalDateTime.parse(timestamp, Vocabulary.SMPP.timestampFormat());
            assertThat(parsed.toInstant(java.time.ZoneOffset.UTC))
                    .isBetween(before, Instant.now().plusSeconds(1));
        }
    }

    @Test
    void jsonVocabularyUsesIsoTimestampsAndItsOwnWords() throws Exception {
        start(FAST.toBuilder()
                .vocabulary(Vocabulary.JSON)
                .intermediateReceipts(3)
                .build());
        Instant before = Instant.now().minusSeconds(1);
        submit("key-1", "order-1");

        await().atMost(Duration.ofSeconds(10)).until(() -> receiver.accepted().size() == 4);

        assertThat(receiver.acceptedStatuses()).containsExactly("queued", "sending", "sent", "delivered");
        for (CallbackReceiver.Received callback : receiver.accepted()) {
            String timestamp = callback.json().path("timestamp").asText();
            assertThat(timestamp).matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z");
            assertThat(Instant.parse(timestamp)).isBetween(before, Instant.now().plusSeconds(1));
        }
    }

    @Test
    void undeliveredFinalsCarryANegativeStatusAndAnErrorCode() throws Exception {
        start(FAST.toBuilder().undeliveredRate(1.0).intermediateReceipts(0).build());
        submit("key-1", "order-1");

        await().atMost(Duration.ofSeconds(10)).until(() -> receiver.accepted().size() == 1);

        JsonNode callback = receiver.accepted().get(0).json();
        assertThat(callback.path("status").asText()).isIn("UNDELIV", "EXPIRED", "REJECTD", "DELETED");
        assertThat(callback.path("errorCode").asText()).isNotBlank();
    }

    @Test
    void unknownStatusRateOneSendsAStatusOutsideTheVocabulary() throws Exception {
        start(FAST.toBuilder().unknownStatusRate(1.0).build());
        submit("key-1", "order-1");

        await().atMost(Duration.ofSeconds(10)).until(() -> receiver.accepted().size() == 2);

        assertThat(receiver.acceptedStatuses()).containsOnly("MYSTERY_STATE");
    }

    @Test
    void badTimestampRateOneSendsTimestampsThatDoNotParse() throws Exception {
        start(FAST.toBuilder().badTimestampRate(1.0).build());
        submit("key-1", "order-1");
        await().atMost(Duration.ofSeconds(10)).until(() -> receiver.accepted().size() == 2);

        for (CallbackReceiver.Received callback : receiver.accepted()) {
            String timestamp = callback.json().path("timestamp").asText();
            assertThatThrownBy(() -> Vocabulary.SMPP.timestampFormat().parse(timestamp))
                    .isInstanceOf(DateTimeParseException.class);
        }
        assertThatThrownBy(() -> Instant.parse(Vocabulary.JSON.badTimestamp()))
                .isInstanceOf(DateTimeParseException.class);
    }

    @Test
    void referenceIsLeftOutWhenEchoReferenceIsOff() throws Exception {
        start(FAST.toBuilder().echoReference(false).build());
        submit("key-1", "order-1");

        await().atMost(Duration.ofSeconds(10)).until(() -> receiver.accepted().size() == 2);

        assertThat(receiver.accepted())
                .allSatisfy(
                        callback -> assertThat(callback.json().has("reference")).isFalse());
        assertThat(client.callbackLog())
                .allSatisfy(line -> assertThat(line.path("reference").asText()).isEqualTo("order-1"));
    }

    @Test
    void aCallbackAnswered500IsRetried() throws Exception {
        start(
                FAST.toBuilder().intermediateReceipts(0).build(),
                CallbackReceiver.answering(requestNumber -> requestNumber == 1 ? 500 : 200));
        submit("key-1", "order-1");

        await().atMost(Duration.ofSeconds(10)).until(() -> receiver.accepted().size() == 1);

        List<CallbackReceiver.Received> received = receiver.received();
        assertThat(received)
                .extracting(CallbackReceiver.Received::answeredStatus)
                .containsExactly(500, 200);
        assertThat(received.get(1).rawBody()).isEqualTo(received.get(0).rawBody());
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            JsonNode stats = client.stats();
            assertThat(stats.path("callbacksDelivered").asLong()).isEqualTo(1);
            assertThat(stats.path("callbackAttempts").asLong()).isEqualTo(2);
            assertThat(stats.path("callbacksFailed").asLong()).isZero();
        });
    }

    @Test
    void aCallbackIsGivenUpAndCountedAfterTheLastAttempt() throws Exception {
        start(
                FAST.toBuilder().intermediateReceipts(0).callbackMaxAttempts(3).build(),
                CallbackReceiver.answering(requestNumber -> 503));
        submit("key-1", "order-1");

        await().atMost(Duration.ofSeconds(10))
                .until(() -> client.stats().path("callbacksFailed").asLong() == 1);

        assertThat(receiver.received()).hasSize(3);
        assertThat(client.callbackLog())
                .singleElement()
                .satisfies(
                        line -> assertThat(line.path("delivered").asBoolean()).isFalse());
    }

    @Test
    void theCallbackLogListsEveryCallbackAndWhetherItWasDelivered() throws Exception {
        start(FAST.toBuilder().vocabulary(Vocabulary.JSON).build());
        String providerId = submit("key-1", "order-1");

        await().atMost(Duration.ofSeconds(10))
                .until(() -> client.callbackLog().stream()
                        .allMatch(line -> line.path("delivered").asBoolean()));

        List<JsonNode> log = client.callbackLog();
        assertThat(log).extracting(line -> line.path("status").asText()).containsExactly("queued", "delivered");
        assertThat(log).allSatisfy(line -> {
            assertThat(line.path("id").asText()).isEqualTo(providerId);
            assertThat(line.path("reference").asText()).isEqualTo("order-1");
            assertThat(line.path("timestamp").asText()).isNotBlank();
        });
        assertThat(client.stats().path("callbacksSent").asLong()).isEqualTo(2);
    }
}
