package dev.sendlog.service.resources;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The direct submit path answers the ordinary POST /v1/messages exactly as the Jersey resource does, and hands
 * everything else to the resource unchanged. An Accept header with a quality value is one the filter leaves alone,
 * so the same request can be sent through both paths and the answers compared; the meters prove which path answered.
 */
class DirectSubmitTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness("components", "API,MAINTENANCE");

    private static final String CLIENT = "client-a";
    private static final String[] THROUGH_JERSEY = {"Accept", "application/json;q=0.9"};

    @Test
    void anOrdinarySubmissionIsAnsweredDirectlyAsTheResourceWouldAnswerIt() {
        String body = "{\"to\":\"+4915112345678\",\"body\":\"direct\",\"reference\":\"d-1\"}";
        long[] before = meters();
        ApiResponse direct = SERVICE.api().post("/v1/messages", CLIENT, body);
        assertThat(meters()).containsExactly(before[0] + 1, before[1]);
        ApiResponse jersey = SERVICE.api().post("/v1/messages", CLIENT, body, THROUGH_JERSEY);
        assertThat(meters()).containsExactly(before[0] + 1, before[1] + 1);

        for (ApiResponse r : List.of(direct, jersey)) {
            assertThat(r.status()).isEqualTo(202);
            assertThat(r.contentType()).isEqualTo("application/json");
            String id = r.json().get("id").asText();
            assertThat(r.header("Location")).isEqualTo(SERVICE.api().baseUrl() + "/v1/messages/" + id);
            assertThat(fieldNames(r.json())).containsExactly("id", "status", "acceptedAt");
            assertThat(r.json().get("status").asText()).isEqualTo("ACCEPTED");
            assertThat(Sql.count(
                            SERVICE.dataSource(), "SELECT count(*) FROM messages WHERE id = '" + id + "' AND xid > 0"))
                    .as("the message row is the acceptance, with its tail position")
                    .isEqualTo(1);
            assertThat(Instant.parse(r.json().get("acceptedAt").asText()))
                    .isEqualTo(Instant.parse(SERVICE.api()
                            .get("/v1/messages/" + id, CLIENT)
                            .json()
                            .get("acceptedAt")
                            .asText()));
        }
    }

    @Test
    void aBatchIsAnsweredDirectlyAsTheResourceWouldAnswerIt() {
        String key = "batch-" + UUID.randomUUID();
        String body = "{\"messages\":[{\"to\":\"+4915112345678\",\"body\":\"one\"},"
                + "{\"to\":\"+4915112345679\",\"body\":\"two\",\"idempotencyKey\":\"" + key + "\"}]}";
        long[] before = meters();
        ApiResponse direct = SERVICE.api().post("/v1/messages/batch", CLIENT, body);
        assertThat(meters()).containsExactly(before[0] + 1, before[1]);
        ApiResponse jersey = SERVICE.api().post("/v1/messages/batch", CLIENT, body, THROUGH_JERSEY);
        // A batch with the Idempotency-Key header is refused, by the resource.
        ApiResponse header = SERVICE.api().post("/v1/messages/batch", CLIENT, body, "Idempotency-Key", "k");
        assertThat(meters()).containsExactly(before[0] + 1, before[1] + 2);
        assertThat(header.status()).isEqualTo(400);

        for (ApiResponse r : List.of(direct, jersey)) {
            assertThat(r.status()).isEqualTo(202);
            assertThat(r.contentType()).isEqualTo("application/json");
            assertThat(fieldNames(r.json())).containsExactly("results");
            assertThat(r.json().get("results")).hasSize(2).allSatisfy(item -> {
                assertThat(fieldNames(item)).containsExactly("id", "status", "acceptedAt");
                assertThat(item.get("status").asText()).isEqualTo("ACCEPTED");
            });
        }
        // The second item carried the same key both times: the same message.
        assertThat(direct.json().get("results").get(1).get("id"))
                .isEqualTo(jersey.json().get("results").get(1).get("id"));
        assertThat(direct.json().get("results").get(0).get("id"))
                .isNotEqualTo(jersey.json().get("results").get(0).get("id"));
        assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM messages WHERE body IN ('one', 'two')"))
                .isEqualTo(3);
    }

    @Test
    void idempotencyReplaysAndConflictsAnswerAsTheResourceAnswersThem() {
        String key = "direct-" + UUID.randomUUID();
        String body = "{\"to\":\"+4915112345678\",\"body\":\"once\"}";
        ApiResponse first = SERVICE.api().post("/v1/messages", CLIENT, body, "Idempotency-Key", key);
        long[] before = meters();
        ApiResponse replayDirect = SERVICE.api().post("/v1/messages", CLIENT, body, "Idempotency-Key", key);
        ApiResponse replayJersey = SERVICE.api()
                .post("/v1/messages", CLIENT, body, "Idempotency-Key", key, THROUGH_JERSEY[0], THROUGH_JERSEY[1]);
        String other = "{\"to\":\"+4915112345678\",\"body\":\"something else\"}";
        ApiResponse conflictDirect = SERVICE.api().post("/v1/messages", CLIENT, other, "Idempotency-Key", key);
        ApiResponse conflictJersey = SERVICE.api()
                .post("/v1/messages", CLIENT, other, "Idempotency-Key", key, THROUGH_JERSEY[0], THROUGH_JERSEY[1]);
        assertThat(meters()).containsExactly(before[0] + 2, before[1] + 2);

        for (ApiResponse replay : List.of(replayDirect, replayJersey)) {
            assertThat(replay.status()).isEqualTo(202);
            assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
            assertThat(replay.json().get("id").asText())
                    .isEqualTo(first.json().get("id").asText());
        }
        assertThat(conflictDirect.status()).isEqualTo(409);
        assertThat(conflictDirect.contentType())
                .isEqualTo(conflictJersey.contentType())
                .startsWith("application/problem+json");
        assertThat(conflictDirect.json()).isEqualTo(conflictJersey.json());
        assertThat(Sql.count(
                        SERVICE.dataSource(), "SELECT count(*) FROM messages WHERE idempotency_key = '" + key + "'"))
                .isEqualTo(1);
    }

    @Test
    void whatTheDirectPathDoesNotTakeReachesTheResourceWithItsBodyIntact() {
        long[] before = meters();
        // Read by the filter, refused by the parser, replayed to Jersey: the field errors prove the body arrived whole.
        ApiResponse invalid =
                SERVICE.api().post("/v1/messages", CLIENT, "{\"to\":\"\",\"body\":\"x\",\"colour\":\"red\"}");
        assertThat(invalid.status()).isEqualTo(400);
        List<String> fields = new ArrayList<>();
        invalid.json().get("errors").forEach(e -> fields.add(e.get("field").asText()));
        assertThat(fields).containsExactlyInAnyOrder("to", "colour");

        ApiResponse notJson = SERVICE.api().post("/v1/messages", CLIENT, "{\"to\": nope");
        assertThat(notJson.status()).isEqualTo(400);
        assertThat(notJson.contentType()).startsWith("application/problem+json");

        ApiResponse support =
                SERVICE.api().post("/v1/messages", "support-1", "{\"to\":\"+4915112345678\",\"body\":\"x\"}");
        assertThat(support.status()).isEqualTo(403);
        ApiResponse unknownKey =
                SERVICE.api().post("/v1/messages", "no-such-key", "{\"to\":\"+4915112345678\",\"body\":\"x\"}");
        assertThat(unknownKey.status()).isEqualTo(401);
        ApiResponse notDeclaredJson = SERVICE.api()
                .postBytes(
                        "/v1/messages",
                        CLIENT,
                        "text/plain",
                        "{\"to\":\"+4915112345678\",\"body\":\"x\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(notDeclaredJson.status()).isEqualTo(415);

        assertThat(meters()).containsExactly(before[0], before[1] + 5);
    }

    /** {api.submit.direct, api.submit.passed-on} counts. */
    private static long[] meters() {
        JsonNode meters = SERVICE.admin().get("/metrics", null).json().path("meters");
        return new long[] {
            meters.path("api.submit.direct").path("count").asLong(),
            meters.path("api.submit.passed-on").path("count").asLong()
        };
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
