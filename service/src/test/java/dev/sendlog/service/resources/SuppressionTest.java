package dev.sendlog.service.resources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sendlog.service.support.ApiClient;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The suppression list (API.md, issue 26) over real HTTP, PostgreSQL, Redis and the provider simulator: a listed
 * recipient's messages, queued before or after, end REJECTED with lastError "suppressed", never reach the provider and
 * are never charged; removal lets them flow again; every change is recorded with who, when and why; one tenant's list
 * never touches another's; roles as API.md says. test-config.yml: client-a is acme, client-b globex.
 */
class SuppressionTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness();

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration SETTLE = Duration.ofSeconds(30);

    static ApiResponse put(ApiClient api, String recipient, String key, String body, String query) {
        return api.send(
                api.builder("/v1/suppressions/" + recipient + query, key, "Content-Type", "application/json")
                        .PUT(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)),
                body);
    }

    static ApiResponse put(String recipient, String key, String reason) {
        return put(SERVICE.api(), recipient, key, "{\"reason\":" + JSON.valueToTree(reason) + "}", "");
    }

    static ApiResponse delete(String path, String key) {
        return SERVICE.api().send(SERVICE.api().builder(path, key).DELETE());
    }

    /** Waits until this process's send worker has applied every change in the table (usually at once: NOTIFY). */
    private static void awaitWorkerCaughtUp() {
        long newest = Sql.count(SERVICE.dataSource(), "SELECT coalesce(max(id), 0) FROM suppression_changes");
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> SERVICE.admin()
                                .get("/metrics", null)
                                .json()
                                .path("gauges")
                                .path("suppression.cache.change.id")
                                .path("value")
                                .asLong()
                        >= newest);
    }

    private static void pauseWorker(boolean pause) {
        String task = pause ? "/tasks/pause?component=send-worker" : "/tasks/resume?component=send-worker";
        assertThat(SERVICE.admin().post(task, "admin-1", "").status()).isEqualTo(200);
    }

    private static String submit(String key, String to) {
        ApiResponse r = SERVICE.api().post("/v1/messages", key, "{\"to\":\"" + to + "\",\"body\":\"hello\"}");
        assertThat(r.status()).as(r.raw()).isEqualTo(202);
        return r.json().get("id").asText();
    }

    private static JsonNode message(String id) {
        return SERVICE.api().get("/v1/messages/" + id, "support-1").json();
    }

    /** The message ids (the submit's reference) the simulator was ever sent. */
    private static Set<String> providerReceived() throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(SERVICE.simulator().baseUrl() + "/v1/records"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        Set<String> references = new HashSet<>();
        for (String line : r.body().split("\n")) {
            if (!line.isBlank()) {
                references.add(JSON.readTree(line).path("reference").asText());
            }
        }
        return references;
    }

    @Test
    void aMessageQueuedBeforeItsRecipientWasSuppressedEndsRejectedUnsentAndUncharged() throws Exception {
        String to = Messages.recipient();
        String other = Messages.recipient();
        pauseWorker(true);
        String queued;
        String control;
        try {
            queued = submit("client-a", to);
            control = submit("client-a", other);
            ApiResponse r = put(to, "client-a", "user replied STOP");
            assertThat(r.status()).as(r.raw()).isEqualTo(200);
            assertThat(r.json().get("recipient").asText()).isEqualTo(to);
            assertThat(r.json().get("reason").asText()).isEqualTo("user replied STOP");
            assertThat(r.json().get("actor").asText()).as("a client sees roles").isEqualTo("client");
            awaitWorkerCaughtUp();
        } finally {
            pauseWorker(false);
        }
        String after = submit("client-a", to);

        for (String id : List.of(queued, after)) {
            Messages.awaitStatus(SERVICE, id, "REJECTED", SETTLE);
            assertThat(message(id).get("lastError").asText()).isEqualTo("suppressed");
            assertThat(SERVICE.api()
                            .get("/v1/messages/" + id, "client-a")
                            .json()
                            .get("lastError")
                            .asText())
                    .isEqualTo("suppressed");
        }
        Messages.awaitStatus(SERVICE, control, "SENT", SETTLE);
        assertThat(providerReceived()).contains(control).doesNotContain(queued, after);
        assertThat(Messages.charged(SERVICE, List.of(queued, after)))
                .as("never charged")
                .isZero();
        JsonNode rejected = Messages.history(SERVICE, queued).getLast();
        assertThat(rejected.get("type").asText()).isEqualTo("REJECTED");
        assertThat(rejected.get("data").get("stage").asText()).isEqualTo("suppression");
        assertThat(rejected.get("data").get("reason").asText()).isEqualTo("suppressed");
    }

    @Test
    void removingARecipientLetsItsMessagesFlowAgainAndEveryChangeSaysWhoWhenAndWhy() throws Exception {
        String to = Messages.recipient();
        assertThat(put(to, "client-a", "user replied STOP").status()).isEqualTo(200);
        awaitWorkerCaughtUp();
        String blocked = submit("client-a", to);
        Messages.awaitStatus(SERVICE, blocked, "REJECTED", SETTLE);

        assertThat(delete("/v1/suppressions/" + to + "?reason=user%20replied%20START", "client-a")
                        .status())
                .isEqualTo(204);
        assertThat(delete("/v1/suppressions/" + to, "client-a").status())
                .as("no longer listed")
                .isEqualTo(404);
        ApiResponse again = put(SERVICE.api(), to, "admin-1", "{\"reason\":\"carrier complaint\"}", "?tenant=acme");
        assertThat(again.status()).as(again.raw()).isEqualTo(200);
        assertThat(again.json().get("actor").asText())
                .as("staff see the person")
                .isEqualTo("admin:ops-admin");
        assertThat(delete("/v1/suppressions/%2B" + to.substring(1) + "?tenant=acme", "admin-1")
                        .status())
                .as("+ sent as %2B")
                .isEqualTo(204);
        awaitWorkerCaughtUp();
        String flowing = submit("client-a", to);
        Messages.awaitStatus(SERVICE, flowing, "SENT", SETTLE);
        assertThat(providerReceived()).contains(flowing).doesNotContain(blocked);

        JsonNode staff = SERVICE.api()
                .get("/v1/suppressions/" + to + "/changes?tenant=acme", "support-1")
                .json();
        List<String> seen = new ArrayList<>();
        staff.get("items")
                .forEach(c -> seen.add(c.get("action").asText() + " "
                        + c.get("actor").asText() + " " + c.get("reason").asText(null)));
        assertThat(seen)
                .as("newest first")
                .containsExactly(
                        "REMOVE admin:ops-admin null",
                        "ADD admin:ops-admin carrier complaint",
                        "REMOVE client:acme-client user replied START",
                        "ADD client:acme-client user replied STOP");
        staff.get("items").forEach(c -> assertThat(c.get("at").asText()).isNotEmpty());
        JsonNode own = SERVICE.api()
                .get("/v1/suppressions/" + to + "/changes", "client-a")
                .json();
        List<String> actors = new ArrayList<>();
        own.get("items").forEach(c -> actors.add(c.get("actor").asText()));
        assertThat(actors).as("a client sees roles only").containsExactly("support", "support", "client", "client");
        assertThat(SERVICE.api()
                        .get("/v1/suppressions", "client-a")
                        .json()
                        .get("items")
                        .findValuesAsText("recipient"))
                .doesNotContain(to);
    }

    @Test
    void aRepeatedPutKeepsTheFirstEntryAndRecordsNothing() {
        String to = Messages.recipient();
        ApiResponse first = put(to, "client-a", "user replied STOP");
        ApiResponse second = put(to, "client-a", "another reason");
        assertThat(second.status()).isEqualTo(200);
        assertThat(second.json()).isEqualTo(first.json());
        assertThat(SERVICE.api()
                        .get("/v1/suppressions/" + to + "/changes", "client-a")
                        .json()
                        .get("items"))
                .hasSize(1);
    }

    @Test
    void oneTenantsListNeverTouchesAnothers() {
        String to = Messages.recipient();
        assertThat(put(to, "client-a", "acme's customer opted out").status()).isEqualTo(200);
        awaitWorkerCaughtUp();
        String acme = submit("client-a", to);
        String globex = submit("client-b", to);
        Messages.awaitStatus(SERVICE, acme, "REJECTED", SETTLE);
        Messages.awaitStatus(SERVICE, globex, "SENT", SETTLE);
        assertThat(SERVICE.api()
                        .get("/v1/suppressions", "client-b")
                        .json()
                        .get("items")
                        .findValuesAsText("recipient"))
                .doesNotContain(to);
        assertThat(SERVICE.api()
                        .get("/v1/suppressions/" + to + "/changes", "client-b")
                        .json()
                        .get("items"))
                .isEmpty();
        assertThat(delete("/v1/suppressions/" + to, "client-b").status())
                .as("not on globex's list")
                .isEqualTo(404);
        assertThat(SERVICE.api()
                        .get("/v1/suppressions?tenant=acme", "support-1")
                        .json()
                        .get("items")
                        .findValuesAsText("recipient"))
                .contains(to);
    }

    @Test
    void rolesAreAsApiMdSays() {
        String to = Messages.recipient();
        assertThat(put(to, "support-1", "x").status())
                .as("support reads, never changes")
                .isEqualTo(403);
        assertThat(put(SERVICE.api(), to, "support-1", "{\"reason\":\"x\"}", "?tenant=acme")
                        .status())
                .isEqualTo(403);
        assertThat(delete("/v1/suppressions/" + to + "?tenant=acme", "support-1")
                        .status())
                .isEqualTo(403);
        assertThat(put(to, null, "x").status()).isEqualTo(401);
        assertThat(SERVICE.api().get("/v1/suppressions", null).status()).isEqualTo(401);
        assertThat(SERVICE.api()
                        .get("/v1/suppressions?tenant=globex", "support-1")
                        .status())
                .isEqualTo(200);
        assertThat(SERVICE.api()
                        .get("/v1/suppressions?tenant=globex", "admin-1")
                        .status())
                .isEqualTo(200);
        assertThat(put(to, "client-suspended", "x").status())
                .as("any client key, its own tenant")
                .isEqualTo(200);
        assertThat(SERVICE.api()
                        .get("/v1/suppressions", "client-suspended")
                        .json()
                        .get("items")
                        .findValuesAsText("recipient"))
                .containsExactly(to);
    }

    @Test
    void theListIsPagedInRecipientOrder() {
        List<String> recipients = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String to = Messages.recipient();
            recipients.add(to);
            assertThat(put(SERVICE.api(), to, "admin-1", "{\"reason\":\"bulk\"}", "?tenant=globex")
                            .status())
                    .isEqualTo(200);
        }
        List<String> all = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            JsonNode page = SERVICE.api()
                    .get(
                            "/v1/suppressions?tenant=globex&limit=2" + (cursor == null ? "" : "&cursor=" + cursor),
                            "support-1")
                    .json();
            page.get("items").forEach(e -> all.add(e.get("recipient").asText()));
            cursor = page.get("nextCursor").isNull()
                    ? null
                    : page.get("nextCursor").asText();
            pages++;
        } while (cursor != null && pages < 100);
        assertThat(all).containsAll(recipients).isSorted().doesNotHaveDuplicates();
        assertThat(pages).isGreaterThanOrEqualTo(2);
    }

    @Test
    void badInputIsA400NamingTheField() {
        String to = Messages.recipient();
        record Case(ApiResponse answer, String field) {}
        List<Case> cases = List.of(
                new Case(put("12345", "client-a", "x"), "recipient"),
                new Case(put("+0123456789", "client-a", "x"), "recipient"),
                new Case(put("abc", "client-a", "x"), "recipient"),
                new Case(put(SERVICE.api(), to, "client-a", "{}", ""), "reason"),
                new Case(put(SERVICE.api(), to, "client-a", "{\"reason\":null}", ""), "reason"),
                new Case(put(to, "client-a", ""), "reason"),
                new Case(put(to, "client-a", "   "), "reason"),
                new Case(put(to, "client-a", "x".repeat(501)), "reason"),
                new Case(put(SERVICE.api(), to, "client-a", "{\"reason\":7}", ""), "reason"),
                new Case(put(SERVICE.api(), to, "client-a", "{\"reason\":\"a\\u0000b\"}", ""), "reason"),
                new Case(put(SERVICE.api(), to, "client-a", "{\"reason\":\"x\",\"until\":\"later\"}", ""), "until"),
                new Case(put(SERVICE.api(), to, "client-a", "[\"x\"]", ""), ""),
                new Case(put(SERVICE.api(), to, "client-a", "{\"reason\":\"x\"}", "?tenant=globex"), "tenant"),
                new Case(put(SERVICE.api(), to, "admin-1", "{\"reason\":\"x\"}", ""), "tenant"),
                new Case(put(SERVICE.api(), to, "admin-1", "{\"reason\":\"x\"}", "?tenant=nosuch"), "tenant"),
                new Case(delete("/v1/suppressions/12", "client-a"), "recipient"),
                new Case(delete("/v1/suppressions/" + to + "?reason=" + "y".repeat(501), "client-a"), "reason"),
                new Case(delete("/v1/suppressions/" + to + "?reason=%20", "client-a"), "reason"),
                new Case(SERVICE.api().get("/v1/suppressions?limit=0", "client-a"), "limit"),
                new Case(SERVICE.api().get("/v1/suppressions?limit=501", "client-a"), "limit"),
                new Case(SERVICE.api().get("/v1/suppressions?limit=ten", "client-a"), "limit"),
                new Case(SERVICE.api().get("/v1/suppressions?cursor=%25%25", "client-a"), "cursor"),
                new Case(SERVICE.api().get("/v1/suppressions", "support-1"), "tenant"),
                new Case(SERVICE.api().get("/v1/suppressions/" + to + "/changes?cursor=x", "client-a"), "cursor"),
                new Case(SERVICE.api().get("/v1/suppressions/nope/changes", "client-a"), "recipient"));
        for (Case c : cases) {
            assertThat(c.answer().status()).as(c.answer().raw()).isEqualTo(400);
            assertThat(c.answer().contentType()).startsWith("application/problem+json");
            assertThat(c.answer().json().get("errors").findValuesAsText("field"))
                    .as(c.answer().raw())
                    .contains(c.field());
        }
        ApiResponse noType = SERVICE.api()
                .send(SERVICE.api()
                        .builder("/v1/suppressions/" + to, "client-a")
                        .PUT(HttpRequest.BodyPublishers.ofString("{\"reason\":\"x\"}")));
        assertThat(noType.status()).isEqualTo(415);
        ApiResponse notJson = put(SERVICE.api(), to, "client-a", "{\"reason\":", "");
        assertThat(notJson.status()).isEqualTo(400);
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT count(*) FROM suppression_changes WHERE recipient = '" + to + "'"))
                .as("nothing recorded")
                .isZero();
    }
}
