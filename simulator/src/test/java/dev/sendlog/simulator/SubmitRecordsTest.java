package dev.sendlog.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code GET /v1/records}: what benchmarks read to time each message's arrival at the provider. */
class SubmitRecordsTest {
    private ProviderSimulator simulator;
    private SimulatorClient client;

    @BeforeEach
    void start() throws IOException {
        simulator =
                ProviderSimulator.start(SimulatorConfig.builder().latencyMs(0).build(), 0);
        client = new SimulatorClient(simulator);
    }

    @AfterEach
    void stop() {
        client.close();
        simulator.close();
    }

    @Test
    void listsTheFirstSubmitOfEachKeyWithItsReferenceAndTimeInMicros() throws Exception {
        long before = ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
        client.submit("key-1", "ref-1", null);
        client.submit("key-2", null, null);
        long between = ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
        // The repeat must be recorded later than `between` for the test to tell the first submit's time from it.
        await().until(() -> ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now()) > between + 1000);
        client.submit("key-1", "ref-1-again", null);
        long after = ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());

        HttpResponse<String> response = client.get("/v1/records");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/x-ndjson");
        Map<String, JsonNode> byKey = client.records().stream()
                .collect(Collectors.toMap(n -> n.path("key").asText(), Function.identity()));
        assertThat(byKey).containsOnlyKeys("key-1", "key-2");
        JsonNode first = byKey.get("key-1");
        assertThat(first.path("reference").asText()).isEqualTo("ref-1");
        assertThat(first.path("providerId").asText()).isEqualTo("p0");
        assertThat(first.path("recordedAtMicros").asLong()).isBetween(before, between);
        assertThat(byKey.get("key-2").path("reference").isNull()).isTrue();
        assertThat(byKey.get("key-2").path("recordedAtMicros").asLong()).isBetween(before, after);
    }

    @Test
    void aResetEmptiesTheList() throws Exception {
        client.submit("key-1", "ref-1", null);

        simulator.reset();

        assertThat(client.records()).isEmpty();
    }
}
