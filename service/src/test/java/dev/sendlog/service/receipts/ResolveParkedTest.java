package dev.sendlog.service.receipts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every status an admin may apply to parked provider input, through the HTTP API, on a message the provider accepted:
 * DELIVERED and UNDELIVERED are finals; UNKNOWN is not failed, so the provider's later final receipt still wins
 * (issue 24, item 1). Anything else is refused with 400 and leaves the row unresolved.
 */
class ResolveParkedTest {
    // The simulator sends no receipts (the harness's default): every receipt here is one the test signs.
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness();

    private static ApiResponse callback(String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        return SERVICE.api()
                .postBytes(
                        "/v1/callbacks/sim",
                        null,
                        "application/json",
                        bytes,
                        "X-Signature",
                        CallbackSignature.sign("sim-secret", bytes));
    }

    private static String receipt(String id, String status, String timestamp) {
        return "{\"id\":\"" + providerId(id) + "\",\"reference\":\"" + id + "\",\"status\":\"" + status
                + "\",\"timestamp\":\"" + timestamp + "\"}";
    }

    private static JsonNode message(String id) {
        return SERVICE.api().get("/v1/messages/" + id, "support-1").json();
    }

    private static String providerId(String id) {
        return message(id).get("providerId").asText();
    }

    private static String sentMessage() {
        String id = Messages.submitOne(SERVICE, Messages.recipient());
        Messages.awaitStatus(SERVICE, id, "SENT", Duration.ofSeconds(30));
        return id;
    }

    /** A signed callback for {@code id} with a status word the gateway's vocabulary does not know: parked, matched to it. */
    private static long parkUnknownWord(String id) {
        ApiResponse stored = callback(receipt(id, "NEWWORD", "2611300931"));
        assertThat(stored.status()).as(stored.raw()).isEqualTo(200);
        long inboxId = stored.json().get("stored").asLong();
        return await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .until(
                        () -> Sql.count(
                                SERVICE.dataSource(),
                                "SELECT coalesce(max(id), -1) FROM parked_input WHERE inbox_id = " + inboxId
                                        + " AND message_id = '" + id + "'"),
                        parkedId -> parkedId > 0);
    }

    private static ApiResponse resolve(long parkedId, String body) {
        return SERVICE.api().post("/v1/admin/parked/" + parkedId + "/resolve", "admin-1", body);
    }

    private static ApiResponse apply(long parkedId, String status, String id) {
        return resolve(parkedId, "{\"action\":\"apply\",\"status\":\"" + status + "\",\"messageId\":\"" + id + "\"}");
    }

    @ParameterizedTest
    @ValueSource(strings = {"DELIVERED", "UNDELIVERED"})
    void applyingAFinalStatusGivesThatStatus(String status) {
        String id = sentMessage();
        ApiResponse r = apply(parkUnknownWord(id), status, id);
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        assertThat(message(id).get("status").asText()).isEqualTo(status);
    }

    @ParameterizedTest
    @CsvSource({"DELIVRD, 2611300932, DELIVERED", "UNDELIV, 2611300933, UNDELIVERED"})
    void applyingUnknownGivesUnknownAndTheProvidersLaterFinalReceiptStillWins(
            String word, String timestamp, String finalStatus) {
        String id = sentMessage();
        ApiResponse r = apply(parkUnknownWord(id), "UNKNOWN", id);
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        JsonNode unknown = message(id);
        assertThat(unknown.get("status").asText()).isEqualTo("UNKNOWN");
        assertThat(unknown.get("lastError").asText()).isEqualTo("resolved as unknown by support");

        ApiResponse late = callback(receipt(id, word, timestamp));
        assertThat(late.status()).as(late.raw()).isEqualTo(200);
        Messages.awaitStatus(SERVICE, id, finalStatus, Duration.ofSeconds(30));
        assertThat(Messages.events(SERVICE, id, "RECEIPT")).isEqualTo(1);
        // Search by status finds it under its final status, and under UNKNOWN no more.
        assertThat(searchIds("status=" + finalStatus)).contains(id);
        assertThat(searchIds("status=UNKNOWN")).doesNotContain(id);
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"INTERMEDIATE\"", "\"delivered\"", "\"GARBAGE\"", "\"\"", "5", "null", "{\"x\":1}"})
    void anyOtherStatusIsRefusedWith400AndTheRowStaysParked(String status) {
        String id = sentMessage();
        long parkedId = parkUnknownWord(id);
        ApiResponse r =
                resolve(parkedId, "{\"action\":\"apply\",\"status\":" + status + ",\"messageId\":\"" + id + "\"}");
        assertThat(r.status()).as(r.raw()).isEqualTo(400);
        assertThat(r.contentType()).startsWith("application/problem+json");
        assertThat(r.json().get("status").asInt()).isEqualTo(400);
        assertThat(Sql.count(
                        SERVICE.dataSource(), "SELECT count(*) FROM parked_resolutions WHERE parked_id = " + parkedId))
                .isZero();
        assertThat(Messages.events(SERVICE, id, "RESOLVED")).isZero();
        assertThat(message(id).get("status").asText()).isEqualTo("SENT");
    }

    @Test
    void aSupportKeyMayNotApplyAStatus() {
        String id = sentMessage();
        ApiResponse r = SERVICE.api()
                .post(
                        "/v1/admin/parked/" + parkUnknownWord(id) + "/resolve",
                        "support-1",
                        "{\"action\":\"apply\",\"status\":\"UNKNOWN\",\"messageId\":\"" + id + "\"}");
        assertThat(r.status()).isEqualTo(403);
        assertThat(message(id).get("status").asText()).isEqualTo("SENT");
    }

    /** A signed callback whose body is not JSON: parked at once, matched to no message. */
    private static long parkNotJson() {
        ApiResponse stored = callback("not json " + java.util.UUID.randomUUID());
        assertThat(stored.status()).as(stored.raw()).isEqualTo(200);
        long inboxId = stored.json().get("stored").asLong();
        return await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .until(
                        () -> Sql.count(
                                SERVICE.dataSource(),
                                "SELECT coalesce(max(id), -1) FROM parked_input WHERE inbox_id = " + inboxId),
                        parkedId -> parkedId > 0);
    }

    private static long resolutions(long parkedId) {
        return Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM parked_resolutions WHERE parked_id = " + parkedId);
    }

    private static void assertRefused(ApiResponse r, String field) {
        assertThat(r.status()).as(r.raw()).isEqualTo(400);
        assertThat(r.contentType()).startsWith("application/problem+json");
        assertThat(r.json().get("errors").findValuesAsText("field")).as(r.raw()).contains(field);
    }

    /** Issue 24, item 7: the second of two admins at once was a primary-key violation answered 500. */
    @Test
    void adminsResolvingTheSameRowAtOnceGetOne200AndOnly409s() throws Exception {
        String id = sentMessage();
        List<String> bodies = List.of(
                "{\"action\":\"discard\",\"note\":\"noise\"}",
                "{\"action\":\"apply\",\"status\":\"DELIVERED\",\"messageId\":\"" + id + "\"}");
        List<Long> rows = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            rows.add(parkNotJson());
        }
        rows.add(parkUnknownWord(id));
        int admins = 8;
        ExecutorService pool = Executors.newFixedThreadPool(admins);
        try {
            for (long parkedId : rows) {
                CountDownLatch start = new CountDownLatch(1);
                List<Future<ApiResponse>> answers = new ArrayList<>();
                for (int a = 0; a < admins; a++) {
                    String body = bodies.get(a % 2 == 1 && parkedId == rows.getLast() ? 1 : 0);
                    answers.add(pool.submit(() -> {
                        start.await();
                        return resolve(parkedId, body);
                    }));
                }
                start.countDown();
                List<Integer> statuses = new ArrayList<>();
                for (Future<ApiResponse> f : answers) {
                    ApiResponse r = f.get(60, TimeUnit.SECONDS);
                    statuses.add(r.status());
                    if (r.status() != 200) {
                        assertThat(r.contentType()).as(r.raw()).startsWith("application/problem+json");
                    }
                }
                assertThat(statuses).as("parked row %d", parkedId).containsOnly(200, 409);
                assertThat(statuses.stream().filter(s -> s == 200).count())
                        .as("parked row %d: %s", parkedId, statuses)
                        .isEqualTo(1);
                assertThat(resolutions(parkedId)).isEqualTo(1);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(Messages.events(SERVICE, id, "RESOLVED")).isEqualTo(1);
    }

    /** Issue 24, items 7 and 15: a NUL failed in PostgreSQL (500), a lone surrogate was stored as '?'. */
    @ParameterizedTest
    @ValueSource(strings = {"a\\u0000b", "\\u0000", "x\\ud800y", "\\udc00", "ok \\udbff"})
    void aNoteThatCannotBeStoredAsSentIsRefusedWith400AndTheRowStaysParked(String escapedNote) {
        long parkedId = parkNotJson();
        assertRefused(resolve(parkedId, "{\"action\":\"discard\",\"note\":\"" + escapedNote + "\"}"), "note");
        assertThat(resolutions(parkedId)).isZero();
        ApiResponse ok = resolve(parkedId, "{\"action\":\"discard\",\"note\":\"fine \\ud83d\\ude00\"}");
        assertThat(ok.status()).as(ok.raw()).isEqualTo(200);
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT count(*) FROM parked_resolutions WHERE parked_id = " + parkedId
                                + " AND note = 'fine \uD83D\uDE00'"))
                .isEqualTo(1);
    }

    /** Issue 24, item 15: a note that was not a string was stored as "", and unknown fields were ignored. */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"action\":\"discard\",\"note\":5} | note",
                "{\"action\":\"discard\",\"note\":{\"x\":1}} | note",
                "{\"action\":\"discard\",\"note\":[\"a\"]} | note",
                "{\"action\":\"discard\",\"note\":true} | note",
                "{\"action\":\"discard\",\"notes\":\"typo\"} | notes",
                "{\"action\":\"discard\",\"note\":\"n\",\"force\":true} | force",
                "{\"action\":5} | action",
                "{\"note\":\"n\"} | action",
                "{\"action\":\"discard\",\"messageId\":7} | messageId"
            })
    void aResolutionWithAFieldThatIsNotAStringOrIsUnknownIsRefusedWith400(String body, String field) {
        long parkedId = parkNotJson();
        assertRefused(resolve(parkedId, body), field);
        assertThat(resolutions(parkedId)).isZero();
    }

    private static java.util.List<String> searchIds(String query) {
        java.util.List<String> ids = new java.util.ArrayList<>();
        SERVICE.api()
                .get("/v1/messages?" + query + "&limit=500", "support-1")
                .json()
                .get("items")
                .forEach(i -> ids.add(i.get("id").asText()));
        return ids;
    }
}
