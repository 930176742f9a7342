package dev.sendlog.tools.loadtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/** The one closed-loop generator: every numbered request sent once, its answer given back with its number. */
class ClosedLoopTest {
    @Test
    void everyRequestIsSentOnceAndItsAnswerComesBackWithItsNumber() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        Map<String, String> authorizations = new ConcurrentHashMap<>();
        server.createContext("/v1/messages", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            authorizations.put(body, exchange.getRequestHeaders().getFirst("Authorization"));
            byte[] answer = ("{\"id\":\"" + body + "\"}").getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(202, answer.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(answer);
            }
        });
        server.start();
        try {
            Map<Long, String> answers = new ConcurrentHashMap<>();
            long sent = new ClosedLoop("http://127.0.0.1:" + server.getAddress().getPort(), "k-1")
                    .run(
                            3,
                            true,
                            n -> n < 50
                                    ? new ClosedLoop.Request(
                                            "/v1/messages", Long.toString(n).getBytes(StandardCharsets.UTF_8))
                                    : null,
                            (n, start, roundTrip, status, body) -> {
                                assertThat(status).isEqualTo(202);
                                assertThat(roundTrip).isPositive();
                                assertThat(answers.put(n, body.toString(StandardCharsets.UTF_8)))
                                        .as("answered once")
                                        .isNull();
                            });
            assertThat(sent).isEqualTo(50);
            assertThat(answers).hasSize(50);
            answers.forEach((n, body) -> assertThat(body).isEqualTo("{\"id\":\"" + n + "\"}"));
            assertThat(authorizations.values()).containsOnly("Bearer k-1");
        } finally {
            server.stop(0);
        }
    }

    @Test
    void aRequestThatFindsNoServerIsAnsweredWithMinusOne() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        Map<Long, Integer> statuses = new ConcurrentHashMap<>();
        new ClosedLoop("http://127.0.0.1:" + port, "k")
                .run(
                        1,
                        false,
                        n -> n < 2 ? new ClosedLoop.Request("/v1/messages", new byte[] {'{', '}'}) : null,
                        (n, start, roundTrip, status, body) -> statuses.put(n, status));
        assertThat(statuses).containsExactlyInAnyOrderEntriesOf(Map.of(0L, -1, 1L, -1));
    }
}
