package dev.sendlog.service.resources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.service.receipts.CallbackSignature;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Who did what in a history (issue 24, item 12): a client sees roles (api, poller, worker, callbacks, support), never
 * a host name, process id or staff key name; support and admin see the process or person as recorded.
 */
class EventActorsTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness();

    private static final String PID = Long.toString(ProcessHandle.current().pid());

    private static List<JsonNode> events(String id, String key) {
        ApiResponse r = SERVICE.api().get("/v1/messages/" + id + "/events", key);
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        List<JsonNode> events = new ArrayList<>();
        r.json().get("events").forEach(events::add);
        return events;
    }

    private static List<String> actors(List<JsonNode> events) {
        return events.stream().map(e -> e.get("actor").asText()).toList();
    }

    /** A message the provider accepted, with a RECEIPT from the callback worker and a RESOLVED by an admin. */
    private static String messageTouchedByEveryRole() {
        String id = Messages.submitOne(SERVICE, Messages.recipient());
        Messages.awaitStatus(SERVICE, id, "SENT", Duration.ofSeconds(30));
        String providerId = SERVICE.api()
                .get("/v1/messages/" + id, "support-1")
                .json()
                .get("providerId")
                .asText();
        for (String status : List.of("ENROUTE", "NEWWORD")) {
            byte[] body = ("{\"id\":\"" + providerId + "\",\"reference\":\"" + id + "\",\"status\":\"" + status
                            + "\",\"timestamp\":\"2611300931\"}")
                    .getBytes(StandardCharsets.UTF_8);
            assertThat(SERVICE.api()
                            .postBytes(
                                    "/v1/callbacks/sim",
                                    null,
                                    "application/json",
                                    body,
                                    "X-Signature",
                                    CallbackSignature.sign("sim-secret", body))
                            .status())
                    .isEqualTo(200);
        }
        Messages.awaitStatus(SERVICE, id, "IN_TRANSIT", Duration.ofSeconds(30));
        long parkedId = await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> Sql.count(
                                SERVICE.dataSource(),
                                "SELECT coalesce(max(id), -1) FROM parked_input WHERE message_id = '" + id + "'"),
                        p -> p > 0);
        ApiResponse resolved = SERVICE.api()
                .post(
                        "/v1/admin/parked/" + parkedId + "/resolve",
                        "admin-1",
                        "{\"action\":\"apply\",\"status\":\"DELIVERED\"}");
        assertThat(resolved.status()).as(resolved.raw()).isEqualTo(200);
        return id;
    }

    @Test
    void aClientSeesRolesAndSupportAndAdminSeeTheInstance() {
        String id = messageTouchedByEveryRole();

        List<JsonNode> asClient = events(id, "client-a");
        assertThat(actors(asClient)).containsExactly("api", "poller", "worker", "worker", "callbacks", "support");
        assertThat(asClient.toString()).doesNotContain(PID).doesNotContain("ops-admin");
        JsonNode claim = asClient.stream()
                .filter(e -> e.get("type").asText().equals("CLAIMED"))
                .findFirst()
                .orElseThrow();
        assertThat(claim.get("data").get("worker").asText()).isEqualTo("worker");

        for (String staff : List.of("support-1", "admin-1")) {
            List<String> recorded = actors(events(id, staff));
            assertThat(recorded.get(0)).isEqualTo("api");
            assertThat(recorded.subList(1, 5)).allSatisfy(a -> assertThat(a).endsWith("-" + PID));
            assertThat(recorded.get(1)).startsWith("poller-");
            assertThat(recorded.get(2)).startsWith("worker-");
            assertThat(recorded.get(4)).startsWith("callbacks-");
            assertThat(recorded.get(5)).isEqualTo("admin:ops-admin");
        }
    }
}
