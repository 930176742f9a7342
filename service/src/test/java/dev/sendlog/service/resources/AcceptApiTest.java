package dev.sendlog.service.resources;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** POST /v1/messages and /batch, GET one and its events, with every status code API.md lists for them. */
class AcceptApiTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness("components", "API,MAINTENANCE");

    private static final String CLIENT = "client-a";
    private static final String OTHER_CLIENT = "client-b";
    private static final String SUPPORT = "support-1";

    private static String message(String to, String body) {
        return "{\"to\":\"" + to + "\",\"body\":\"" + body + "\"}";
    }

    @Test
    void acceptedMessageIsCommittedWithItsAcceptedEventAndReadBack() {
        ApiResponse r = SERVICE.api()
                .post(
                        "/v1/messages",
                        CLIENT,
                        "{\"to\":\"+4915112345678\",\"body\":\"Your code is 123456\",\"reference\":\"order-881\","
                                + "\"gateway\":\"sim\",\"metadata\":{\"k\":\"v\"}}");
        assertThat(r.status()).isEqualTo(202);
        String id = r.json().get("id").asText();
        assertThat(r.json().get("status").asText()).isEqualTo("ACCEPTED");
        assertThat(r.header("Location")).endsWith("/v1/messages/" + id);
        assertThat(UUID.fromString(id).version()).isEqualTo(7);

        assertThat(count("SELECT count(*) FROM messages WHERE id = '" + id + "' AND tenant = 'acme'"))
                .isEqualTo(1);
        assertThat(count("SELECT count(*) FROM messages WHERE id = '" + id + "' AND xid > 0 AND position > 0"))
                .as("the row is the acceptance and the poller's work")
                .isEqualTo(1);
        assertThat(count("SELECT count(*) FROM message_events WHERE message_id = '" + id + "' AND seq = 1"))
                .as("no ACCEPTED event row repeats it")
                .isZero();

        JsonNode one = SERVICE.api().get("/v1/messages/" + id, CLIENT).json();
        assertThat(one.get("status").asText()).isEqualTo("ACCEPTED");
        assertThat(one.get("to").asText()).isEqualTo("+4915112345678");
        assertThat(one.get("reference").asText()).isEqualTo("order-881");
        assertThat(one.get("gateway").asText()).isEqualTo("sim");
        assertThat(one.get("attempts").asInt()).isZero();
        assertThat(one.get("providerId").isNull()).isTrue();
        assertThat(one.get("acceptedAt").asText())
                .isEqualTo(r.json().get("acceptedAt").asText());

        JsonNode history =
                SERVICE.api().get("/v1/messages/" + id + "/events", CLIENT).json();
        assertThat(history.get("events")).hasSize(1);
        JsonNode first = history.get("events").get(0);
        assertThat(first.get("seq").asInt()).isEqualTo(1);
        assertThat(first.get("type").asText()).isEqualTo("ACCEPTED");
        assertThat(first.get("actor").asText()).isEqualTo("api");
        assertThat(first.get("data").get("gateway").asText()).isEqualTo("sim");
    }

    @Test
    void invalidMessageIsRefusedWithEveryFieldProblemAsProblemJson() {
        long before = count("SELECT count(*) FROM messages");
        ApiResponse r = SERVICE.api()
                .post(
                        "/v1/messages",
                        CLIENT,
                        "{\"to\":\"\",\"body\":" + "\"" + "x".repeat(1601)
                                + "\",\"reference\":7,\"gateway\":\"nope\",\"colour\":\"red\"}");
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.contentType()).startsWith("application/problem+json");
        assertThat(r.json().get("type").asText()).isNotBlank();
        assertThat(r.json().get("title").asText()).isNotBlank();
        assertThat(r.json().get("status").asInt()).isEqualTo(400);
        List<String> fields = new ArrayList<>();
        r.json().get("errors").forEach(e -> fields.add(e.get("field").asText()));
        assertThat(fields).containsExactlyInAnyOrder("to", "body", "reference", "gateway", "colour");
        assertThat(count("SELECT count(*) FROM messages")).isEqualTo(before);
    }

    @Test
    void unstorableTextAndOversizedMetadataAreRefused() {
        assertThat(SERVICE.api()
                        .post("/v1/messages", CLIENT, "{\"to\":\"+4915100000000\",\"body\":\"a\\u0000b\"}")
                        .status())
                .isEqualTo(400);
        assertThat(SERVICE.api()
                        .post("/v1/messages", CLIENT, "{\"to\":\"+4915100000000\",\"body\":\"\\ud800\"}")
                        .status())
                .isEqualTo(400);
        String big = "{\"to\":\"+4915100000000\",\"body\":\"b\",\"metadata\":{\"k\":\"" + "v".repeat(4100) + "\"}}";
        ApiResponse r = SERVICE.api().post("/v1/messages", CLIENT, big);
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().get("errors").get(0).get("field").asText()).isEqualTo("metadata");
        assertThat(SERVICE.api()
                        .post("/v1/messages", CLIENT, "{\"to\":\"+4915100000000\",\"body\":\"b\",\"metadata\":[1]}")
                        .status())
                .isEqualTo(400);
    }

    @Test
    void malformedDuplicatedOrEmptyJsonIsA400() {
        assertThat(SERVICE.api().post("/v1/messages", CLIENT, "{\"to\":").status())
                .isEqualTo(400);
        ApiResponse dup = SERVICE.api().post("/v1/messages", CLIENT, "{\"to\":\"+1\",\"to\":\"+2\",\"body\":\"b\"}");
        assertThat(dup.status()).isEqualTo(400);
        assertThat(dup.contentType()).startsWith("application/problem+json");
        assertThat(SERVICE.api().post("/v1/messages", CLIENT, "").status()).isEqualTo(400);
        assertThat(SERVICE.api().post("/v1/messages", CLIENT, "[]").status()).isEqualTo(400);
    }

    @Test
    void authenticationAndRolesAnswer401And403() {
        ApiResponse none = SERVICE.api().post("/v1/messages", null, message("+4915100000000", "b"));
        assertThat(none.status()).isEqualTo(401);
        assertThat(none.contentType()).startsWith("application/problem+json");
        assertThat(SERVICE.api()
                        .post("/v1/messages", "wrong-key", message("+4915100000000", "b"))
                        .status())
                .isEqualTo(401);
        assertThat(SERVICE.api().get("/v1/messages", "wrong-key").status()).isEqualTo(401);
        ApiResponse support = SERVICE.api().post("/v1/messages", SUPPORT, message("+4915100000000", "b"));
        assertThat(support.status()).isEqualTo(403);
        assertThat(support.contentType()).startsWith("application/problem+json");
    }

    @Test
    void anotherTenantsMessageIsNotFoundButSupportSeesIt() {
        String id = SERVICE.api()
                .post("/v1/messages", CLIENT, message("+4915100000000", "mine"))
                .json()
                .get("id")
                .asText();
        ApiResponse other = SERVICE.api().get("/v1/messages/" + id, OTHER_CLIENT);
        assertThat(other.status()).isEqualTo(404);
        assertThat(other.contentType()).startsWith("application/problem+json");
        assertThat(SERVICE.api()
                        .get("/v1/messages/" + id + "/events", OTHER_CLIENT)
                        .status())
                .isEqualTo(404);
        assertThat(SERVICE.api().get("/v1/messages/" + id, SUPPORT).status()).isEqualTo(200);
        assertThat(SERVICE.api()
                        .get("/v1/messages/" + UUID.randomUUID(), CLIENT)
                        .status())
                .isEqualTo(404);
        assertThat(SERVICE.api().get("/v1/messages/not-a-uuid", CLIENT).status())
                .isEqualTo(404);
    }

    @Test
    void bodyOver64KibIs413AndNonJsonIs415() {
        byte[] huge = ("{\"to\":\"+4915100000000\",\"body\":\"" + "x".repeat(70_000) + "\"}")
                .getBytes(StandardCharsets.UTF_8);
        ApiResponse tooLarge = SERVICE.api().postBytes("/v1/messages", CLIENT, "application/json", huge);
        assertThat(tooLarge.status()).isEqualTo(413);
        assertThat(tooLarge.contentType()).startsWith("application/problem+json");
        ApiResponse text = SERVICE.api()
                .postBytes(
                        "/v1/messages",
                        CLIENT,
                        "text/plain",
                        message("+4915100000000", "b").getBytes(StandardCharsets.UTF_8));
        assertThat(text.status()).isEqualTo(415);
        assertThat(text.contentType()).startsWith("application/problem+json");
    }

    @Test
    void sameIdempotencyKeyAndBodyReplaysTheSameMessage() {
        String key = "key-" + UUID.randomUUID();
        ApiResponse first =
                SERVICE.api().post("/v1/messages", CLIENT, message("+4915100000001", "hello"), "Idempotency-Key", key);
        ApiResponse again =
                SERVICE.api().post("/v1/messages", CLIENT, message("+4915100000001", "hello"), "Idempotency-Key", key);
        assertThat(first.status()).isEqualTo(202);
        assertThat(first.header("Idempotent-Replayed")).isNull();
        assertThat(again.status()).isEqualTo(202);
        assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(again.json()).isEqualTo(first.json());
        assertThat(count("SELECT count(*) FROM messages WHERE idempotency_key = '" + key + "'"))
                .isEqualTo(1);

        ApiResponse different =
                SERVICE.api().post("/v1/messages", CLIENT, message("+4915100000001", "other"), "Idempotency-Key", key);
        assertThat(different.status()).isEqualTo(409);
        assertThat(different.contentType()).startsWith("application/problem+json");
        assertThat(count("SELECT count(*) FROM messages WHERE idempotency_key = '" + key + "'"))
                .isEqualTo(1);

        // Keys are per tenant: another tenant may use the same one.
        assertThat(SERVICE.api()
                        .post("/v1/messages", OTHER_CLIENT, message("+4915100000001", "other"), "Idempotency-Key", key)
                        .status())
                .isEqualTo(202);
        assertThat(SERVICE.api()
                        .post(
                                "/v1/messages",
                                CLIENT,
                                message("+4915100000001", "x"),
                                "Idempotency-Key",
                                "k".repeat(129))
                        .status())
                .isEqualTo(400);
    }

    @Test
    void concurrentRequestsWithOneKeyMakeExactlyOneMessageAndAllLearnItsId() throws Exception {
        String key = "race-" + UUID.randomUUID();
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            List<Future<ApiResponse>> futures = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                Callable<ApiResponse> call = () -> SERVICE.api()
                        .post("/v1/messages", CLIENT, message("+4915100000002", "race"), "Idempotency-Key", key);
                futures.add(pool.submit(call));
            }
            Set<String> ids = new HashSet<>();
            int replayed = 0;
            for (Future<ApiResponse> f : futures) {
                ApiResponse r = f.get();
                assertThat(r.status()).isEqualTo(202);
                ids.add(r.json().get("id").asText());
                replayed += "true".equals(r.header("Idempotent-Replayed")) ? 1 : 0;
            }
            assertThat(ids).hasSize(1);
            assertThat(replayed).isEqualTo(31);
            assertThat(count("SELECT count(*) FROM messages WHERE idempotency_key = '" + key + "'"))
                    .isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void everyIdAnsweredWith202UnderConcurrencyIsInTheDatabase() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(32);
        try {
            List<Future<ApiResponse>> futures = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                int n = i;
                futures.add(pool.submit(
                        () -> SERVICE.api().post("/v1/messages", CLIENT, message("+4915130" + n, "load " + n))));
            }
            Set<String> ids = new HashSet<>();
            for (Future<ApiResponse> f : futures) {
                ApiResponse r = f.get();
                assertThat(r.status()).isEqualTo(202);
                ids.add(r.json().get("id").asText());
            }
            assertThat(ids).hasSize(500);
            String list = String.join("','", ids);
            assertThat(count("SELECT count(*) FROM messages WHERE id IN ('" + list + "')"))
                    .isEqualTo(500);
            assertThat(count("SELECT count(*) FROM messages WHERE xid > 0 AND id IN ('" + list + "')"))
                    .isEqualTo(500);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void batchIsAcceptedInRequestOrderWithPerItemKeys() {
        String key = "batch-" + UUID.randomUUID();
        String body = "{\"messages\":[" + message("+4915100000901", "one") + ","
                + "{\"to\":\"+4915100000902\",\"body\":\"two\",\"idempotencyKey\":\"" + key + "\"},"
                + message("+4915100000903", "three") + "]}";
        ApiResponse r = SERVICE.api().post("/v1/messages/batch", CLIENT, body);
        assertThat(r.status()).isEqualTo(202);
        JsonNode results = r.json().get("results");
        assertThat(results).hasSize(3);
        for (int i = 0; i < 3; i++) {
            String id = results.get(i).get("id").asText();
            assertThat(results.get(i).get("status").asText()).isEqualTo("ACCEPTED");
            assertThat(SERVICE.api()
                            .get("/v1/messages/" + id, CLIENT)
                            .json()
                            .get("to")
                            .asText())
                    .isEqualTo("+491510000090" + (i + 1));
        }
        ApiResponse replay = SERVICE.api()
                .post(
                        "/v1/messages/batch",
                        CLIENT,
                        "{\"messages\":[{\"to\":\"+4915100000902\",\"body\":\"two\",\"idempotencyKey\":\"" + key
                                + "\"}]}");
        assertThat(replay.json().get("results").get(0).get("id").asText())
                .isEqualTo(results.get(1).get("id").asText());
        assertThat(count("SELECT count(*) FROM messages WHERE idempotency_key = '" + key + "'"))
                .isEqualTo(1);
    }

    @Test
    void batchWithOneInvalidItemNamesItAndAcceptsNothing() {
        long before = count("SELECT count(*) FROM messages");
        String body = "{\"messages\":[" + message("+4915100000901", "ok") + ",{\"to\":\"+4915100000902\"},"
                + message("+4915100000903", "ok") + "]}";
        ApiResponse r = SERVICE.api().post("/v1/messages/batch", CLIENT, body);
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().get("errors").get(0).get("field").asText()).isEqualTo("messages[1].body");
        assertThat(count("SELECT count(*) FROM messages")).isEqualTo(before);

        StringBuilder tooMany = new StringBuilder("{\"messages\":[");
        for (int i = 0; i < 1001; i++) {
            tooMany.append(i == 0 ? "" : ",").append(message("+4915100000000", "m"));
        }
        assertThat(SERVICE.api()
                        .post("/v1/messages/batch", CLIENT, tooMany.append("]}").toString())
                        .status())
                .isEqualTo(400);
        assertThat(SERVICE.api()
                        .post("/v1/messages/batch", CLIENT, "{\"messages\":[]}")
                        .status())
                .isEqualTo(400);
        assertThat(count("SELECT count(*) FROM messages")).isEqualTo(before);
    }

    @Test
    void batchWithAKeyUsedForADifferentRequestIsA409AndAcceptsNothing() {
        String key = "batch-conflict-" + UUID.randomUUID();
        assertThat(SERVICE.api()
                        .post("/v1/messages", CLIENT, message("+4915100000011", "first"), "Idempotency-Key", key)
                        .status())
                .isEqualTo(202);
        long before = count("SELECT count(*) FROM messages");
        String fresh = "fresh-" + UUID.randomUUID();
        ApiResponse r = SERVICE.api()
                .post(
                        "/v1/messages/batch",
                        CLIENT,
                        "{\"messages\":["
                                + "{\"to\":\"+4915100000012\",\"body\":\"new\",\"idempotencyKey\":\"" + fresh + "\"},"
                                + "{\"to\":\"+4915100000011\",\"body\":\"changed\",\"idempotencyKey\":\"" + key
                                + "\"}]}");
        assertThat(r.status()).isEqualTo(409);
        assertThat(r.json().get("errors").get(0).get("field").asText()).isEqualTo("messages[1].idempotencyKey");
        assertThat(count("SELECT count(*) FROM messages")).isEqualTo(before);
        // The fresh key of the refused batch was not kept: it can be used for another request.
        assertThat(count("SELECT count(*) FROM idempotency_keys WHERE client_key = '" + fresh + "'"))
                .isZero();
    }

    @Test
    void healthChecksPassOnTheAdminPort() {
        ApiResponse health = SERVICE.admin().get("/healthcheck", null);
        // This service runs the API only: with no poller anywhere, the pollers check rightly fails once work waits.
        assertThat(health.json().get("database").get("healthy").asBoolean()).isTrue();
        assertThat(health.json().get("partitions").get("healthy").asBoolean()).isTrue();
    }

    private static long count(String sql) {
        return Sql.count(SERVICE.dataSource(), sql);
    }
}
