package dev.sendlog.bench.baseline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sendlog.simulator.ProviderSimulator;
import dev.sendlog.simulator.SimulatorConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The two pieces both baselines stand on, over real HTTP: the accept endpoint and the provider call. */
class AcceptServerAndProviderClientTest {
    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> post(AcceptServer server, String body) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/v1/messages"))
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void acceptAnswers202WithTheIdOnlyAfterTheAcceptorReturned() throws Exception {
        List<SubmitRequest> accepted = new CopyOnWriteArrayList<>();
        try (AcceptServer server = AcceptServer.start(0, request -> {
            accepted.add(request);
            return "id-" + accepted.size();
        })) {
            HttpResponse<String> response = post(server, "{\"to\":\"+4915100000001\",\"body\":\"hello\"}");

            assertThat(response.statusCode()).isEqualTo(202);
            assertThat(response.body()).contains("\"id\":\"id-1\"");
            assertThat(accepted).containsExactly(new SubmitRequest("+4915100000001", "hello"));
            assertThat(post(server, "not json").statusCode()).isEqualTo(400);
            assertThat(post(server, "{\"to\":\"+49\"}").statusCode()).isEqualTo(400);
            assertThat(accepted).hasSize(1);
        }
    }

    @Test
    void aFailedCommitIs503() throws Exception {
        try (AcceptServer server = AcceptServer.start(0, request -> {
            throw new java.sql.SQLException("database down");
        })) {
            assertThat(post(server, "{\"to\":\"+4915100000001\",\"body\":\"hello\"}")
                            .statusCode())
                    .isEqualTo(503);
        }
    }

    @Test
    void providerClientReturnsTheProvidersIdAndFailsOnARefusal() throws Exception {
        try (ProviderSimulator simulator = ProviderSimulator.start(
                        SimulatorConfig.builder().latencyMs(0).build(), 0);
                ProviderClient client = new ProviderClient(simulator.baseUrl(), "sim-token", 4);
                ProviderClient wrongToken = new ProviderClient(simulator.baseUrl(), "not-the-token", 4)) {
            assertThat(client.submit("key-1", "+4915100000001", "hello", "ref-1"))
                    .isEqualTo("p0");
            assertThat(client.submit("key-1", "+4915100000001", "hello", "ref-1"))
                    .isEqualTo("p0");
            assertThat(simulator.keys()).containsExactly("key-1");

            assertThatThrownBy(() -> wrongToken.submit("key-2", "+4915100000001", "hello", "ref-2"))
                    .isInstanceOf(ProviderClient.SubmitFailed.class)
                    .hasMessageContaining("401");
            assertThat(simulator.stats().uniqueKeys()).isEqualTo(1);
        }
    }

    @Test
    void optionsTakeDefaultsAndRefuseUnknownNames() {
        Options options = Options.parse(new String[] {"--port", "8080"}, Map.of("port", "0", "workers", "16"));
        assertThat(options.number("port")).isEqualTo(8080);
        assertThat(options.number("workers")).isEqualTo(16);
        assertThatThrownBy(() -> Options.parse(new String[] {"--nope", "1"}, Map.of("port", "0")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--nope");
    }
}
