package dev.sendlog.service.badinput;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sendlog.service.receipts.CallbackSignature;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 24 item 5: clients that send their headers and then their body slowly, or never. Each one held a request thread
 * until the idle timeout (and then got a 500, logged as an error); a client sending a byte now and then held it for
 * ever; a few hundred held every thread, and ordinary requests waited. Against the real application over raw sockets:
 * 300 such connections at once (more than the 256 request threads of the test configuration) do not stop ordinary
 * requests from being answered promptly, and each slow one is answered 408 once its body falls behind the connector's
 * minimum data rate (test-config.yml http: 1 KiB/s after the 5 s grace), with nothing logged as failed.
 */
class SlowClientsTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness("components", "API,MAINTENANCE");

    private static final int SLOW = 300;
    private static final String HOST = "Host: 127.0.0.1\r\n";

    @Test
    void threeHundredSlowBodiesDoNotStopOrdinaryRequestsAndEachIsAnswered408() throws Exception {
        String id = Messages.submitOne(SERVICE, Messages.recipient());
        String base = SERVICE.api().baseUrl();
        LogWatch log = LogWatch.attach();
        List<SlowClient> slow = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            long opened = System.nanoTime();
            for (int i = 0; i < SLOW; i++) {
                slow.add(SlowClient.open(base, slowStart(i)));
            }
            long openedMs = (System.nanoTime() - opened) / 1_000_000;
            Thread.sleep(500); // every slow request has reached the server and waits for the rest of its body

            // Ordinary requests, several at once, while all 300 are waiting: each is answered promptly.
            long start = System.nanoTime();
            List<Future<Integer>> ordinary = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                ordinary.add(pool.submit(() ->
                        SERVICE.api().get("/v1/messages/" + id, "client-a").status()));
                ordinary.add(pool.submit(() -> SERVICE.api()
                        .post(
                                "/v1/messages",
                                "client-a",
                                "{\"to\":\"" + Messages.recipient() + "\",\"body\":\"ordinary\"}")
                        .status()));
                ordinary.add(pool.submit(() -> signedCallback(base).status()));
                ordinary.add(pool.submit(() ->
                        SERVICE.api().get("/v1/messages?limit=5", "support-1").status()));
            }
            for (Future<Integer> f : ordinary) {
                assertThat(f.get(10, TimeUnit.SECONDS)).isIn(200, 202);
            }
            long ordinaryMs = (System.nanoTime() - start) / 1_000_000;
            System.out.println("SLOW clients opened in " + openedMs + " ms; 16 ordinary requests answered in "
                    + ordinaryMs + " ms");
            assertThat(ordinaryMs)
                    .as("ordinary requests while 300 slow bodies are pending")
                    .isLessThan(3_000);
            long stillWaiting = slow.stream().filter(c -> !c.answered()).count();
            assertThat(stillWaiting)
                    .as("the slow requests were still pending meanwhile")
                    .isGreaterThan(SLOW / 2);

            // Each slow one is answered 408 once it falls behind the data rate, and not before the grace period.
            List<Future<RawResponse>> answers = new ArrayList<>();
            for (SlowClient c : slow) {
                answers.add(pool.submit(() -> c.response(30_000)));
            }
            for (int i = 0; i < answers.size(); i++) {
                RawResponse r = answers.get(i).get(60, TimeUnit.SECONDS);
                assertThat(r.status()).as("slow client " + i + ": " + r).isEqualTo(408);
                assertThat(ProblemProperty.violation(r)).as(r.toString()).isNull();
            }
            long answeredAfter = (System.nanoTime() - opened) / 1_000_000;
            assertThat(answeredAfter).as("not before the 5 s grace").isGreaterThanOrEqualTo(4_500);
            assertThat(SERVICE.admin()
                            .get("/metrics", null)
                            .json()
                            .path("counters")
                            .path("http.body.timeouts")
                            .path("count")
                            .asLong())
                    .isGreaterThanOrEqualTo(SLOW);
        } finally {
            slow.forEach(SlowClient::close);
            pool.shutdownNow();
            log.detach();
        }
        assertThat(log.failures()).as("failures the service logged").isEmpty();
    }

    /** A client that sends a byte of its body every half second never gets to keep its connection: 408. */
    @Test
    void aBodySentAByteAtATimeIsCutOff() throws Exception {
        String body = "{\"id\":\"p1\",\"status\":\"DELIVRD\",\"timestamp\":\"2611300931\"}";
        String signature = CallbackSignature.sign("sim-secret", body.getBytes(StandardCharsets.UTF_8));
        long start = System.nanoTime();
        try (SlowClient c = SlowClient.open(
                SERVICE.api().baseUrl(),
                "POST /v1/callbacks/sim HTTP/1.1\r\n" + HOST + "X-Signature: " + signature + "\r\nContent-Length: "
                        + body.length() + "\r\n\r\n")) {
            int sent = 0;
            while (!c.answered()
                    && sent < body.length() - 1
                    && (System.nanoTime() - start) < TimeUnit.SECONDS.toNanos(25)) {
                try {
                    c.send(body.substring(sent, sent + 1));
                } catch (java.io.UncheckedIOException answeredAndClosed) {
                    break;
                }
                sent++;
                Thread.sleep(500);
            }
            RawResponse r = c.response(10_000);
            assertThat(r.status()).as(r.toString()).isEqualTo(408);
            assertThat(ProblemProperty.violation(r)).isNull();
        }
        assertThat((System.nanoTime() - start) / 1_000_000).isBetween(4_500L, 15_000L);
    }

    /** The start of a request whose body never comes: callbacks signed in form, submits with a valid key, chunked too. */
    private static String slowStart(int i) {
        return switch (i % 3) {
            case 0 ->
                "POST /v1/callbacks/sim HTTP/1.1\r\n" + HOST + "X-Signature: sha256=" + "0".repeat(64)
                        + "\r\nContent-Length: 200\r\n\r\nabc";
            case 1 ->
                "POST /v1/messages HTTP/1.1\r\n" + HOST + "Authorization: Bearer client-a\r\n"
                        + "Content-Type: application/json\r\nContent-Length: 200\r\n\r\n{\"to\":";
            default ->
                "POST /v1/messages/batch HTTP/1.1\r\n" + HOST + "Authorization: Bearer client-a\r\n"
                        + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{\"messages\":[";
        };
    }

    private static ApiResponse signedCallback(String base) {
        byte[] body = ("{\"id\":\"ordinary-" + System.nanoTime()
                        + "\",\"status\":\"DELIVRD\",\"timestamp\":\"2611300931\"}")
                .getBytes(StandardCharsets.UTF_8);
        return new dev.sendlog.service.support.ApiClient(base)
                .postBytes(
                        "/v1/callbacks/sim",
                        null,
                        "application/json",
                        body,
                        "X-Signature",
                        CallbackSignature.sign("sim-secret", body));
    }
}
