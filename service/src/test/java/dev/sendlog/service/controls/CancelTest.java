package dev.sendlog.service.controls;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code POST /v1/messages/{id}/cancel} (issue 26) over HTTP against PostgreSQL, Redis and the simulator. This process
 * runs the API, the poller and the timers but no send worker, so published work waits until a test starts a worker
 * process ({@link ServiceHarness#startAnother}).
 */
class CancelTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness("components", "API,POLLER,MAINTENANCE");

    private static String submit(String key) {
        ApiResponse r = SERVICE.api()
                .post("/v1/messages", key, "{\"to\":\"" + Messages.recipient() + "\",\"body\":\"cancel me\"}");
        assertThat(r.status()).as(r.raw()).isEqualTo(202);
        return r.json().get("id").asText();
    }

    private static ApiResponse cancel(String id, String key) {
        return SERVICE.api().post("/v1/messages/" + id + "/cancel", key, "");
    }

    private static List<String> types(String id) {
        return Messages.history(SERVICE, id).stream()
                .map(e -> e.get("type").asText())
                .toList();
    }

    @Test
    void aWaitingMessageIsCancelledOnceNeverSubmittedNorChargedAndOnlyByItsTenantOrAnAdmin() throws Exception {
        String id = submit("client-a");
        String byAdmin = submit("client-a");
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> Messages.publications(SERVICE, id) > 0);

        assertThat(cancel(id, "support-1").status())
                .as("support reads but does not cancel")
                .isEqualTo(403);
        assertThat(cancel(id, "client-b").status())
                .as("another tenant's message is absent")
                .isEqualTo(404);
        assertThat(cancel("not-an-id", "client-a").status()).isEqualTo(404);
        ApiResponse first = cancel(id, "client-a");
        assertThat(first.status()).as(first.raw()).isEqualTo(200);
        assertThat(first.json().get("status").asText()).isEqualTo("CANCELLED");
        ApiResponse again = cancel(id, "client-a");
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.json()).as("a repeated cancel: the same body").isEqualTo(first.json());
        ApiResponse admin = cancel(byAdmin, "admin-1");
        assertThat(admin.status()).as(admin.raw()).isEqualTo(200);

        // A worker now takes the published jobs: they are stale, and the provider never hears of either message.
        String control = submit("client-a");
        try (ServiceHarness.Instance worker = SERVICE.startAnother(null, "components", "SEND_WORKER")) {
            Messages.awaitStatus(SERVICE, control, "SENT", Duration.ofSeconds(30));
            ApiResponse late = cancel(control, "client-a");
            assertThat(late.status()).as(late.raw()).isEqualTo(409);
            assertThat(late.json().get("detail").asText()).contains("SENT");
        }
        for (String cancelled : List.of(id, byAdmin)) {
            assertThat(types(cancelled))
                    .as(cancelled)
                    .endsWith("CANCELLED")
                    .doesNotContain("CLAIMED", "PROVIDER_ACCEPTED");
            assertThat(Messages.ledgerRows(SERVICE, cancelled)).isZero();
            assertThat(Messages.providerRecords(SERVICE)).doesNotContainKey(cancelled);
        }
        JsonNode last = Messages.history(SERVICE, byAdmin).getLast();
        assertThat(last.get("actor").asText())
                .as("who cancelled, as support sees it")
                .isEqualTo("admin:ops-admin");
        JsonNode clientView = SERVICE.api()
                .get("/v1/messages/" + id + "/events", "client-a")
                .json()
                .get("events");
        assertThat(clientView.get(clientView.size() - 1).get("actor").asText()).isEqualTo("client");
        assertThat(SERVICE.api()
                        .get("/v1/messages?status=CANCELLED", "client-a")
                        .json()
                        .get("items"))
                .extracting(i -> i.get("id").asText())
                .contains(id, byAdmin);
    }

    /**
     * A cancel racing a worker's claim, over many messages with the cancels jittered around the moment the worker starts
     * claiming: for each message exactly one wins. A 200 means CANCELLED, never claimed, never at the provider, never
     * charged; a 409 means the claim won and the message went on to the provider.
     */
    @Test
    void aCancelAndAClaimRacingForAMessageExactlyOneWins() throws Exception {
        Random random = new Random(26);
        int cancelledTotal = 0;
        int claimedTotal = 0;
        for (int round = 0; round < 3; round++) {
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                ids.add(submit("client-a"));
            }
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> ids.stream().allMatch(id -> Messages.publications(SERVICE, id) > 0));
            Map<String, Integer> answers = new ConcurrentHashMap<>();
            ExecutorService pool = Executors.newFixedThreadPool(8);
            // The worker process starts while the cancels go out: those sent while it boots tend to win, those sent
            // as it begins to claim race it, those sent after it claimed lose. Which message falls where is random.
            Future<ServiceHarness.Instance> starting = Executors.newSingleThreadExecutor()
                    .submit(() -> SERVICE.startAnother(null, "components", "SEND_WORKER"));
            try {
                List<Future<?>> sent = new ArrayList<>();
                for (String id : ids) {
                    boolean afterStart = random.nextBoolean();
                    long delay = random.nextInt(afterStart ? 300 : 1500);
                    sent.add(pool.submit(() -> {
                        if (afterStart) {
                            starting.get();
                        }
                        Thread.sleep(delay); // jitter around the claims
                        answers.put(id, cancel(id, "client-a").status());
                        return null;
                    }));
                }
                for (Future<?> f : sent) {
                    f.get();
                }
                for (String id : ids) {
                    if (answers.get(id) == 409) {
                        Messages.awaitStatus(SERVICE, id, "SENT", Duration.ofSeconds(30));
                    }
                }
            } finally {
                pool.shutdownNow();
                starting.get().close();
            }
            Map<String, JsonNode> atProvider = Messages.providerRecords(SERVICE);
            for (String id : ids) {
                List<String> types = types(id);
                assertThat(answers.get(id)).as(id).isIn(200, 409);
                if (answers.get(id) == 200) {
                    cancelledTotal++;
                    assertThat(types).as(id).endsWith("CANCELLED").doesNotContain("CLAIMED", "PROVIDER_ACCEPTED");
                    assertThat(atProvider).doesNotContainKey(id);
                    assertThat(Messages.ledgerRows(SERVICE, id)).isZero();
                } else {
                    claimedTotal++;
                    assertThat(types)
                            .as(id)
                            .contains("CLAIMED", "PROVIDER_ACCEPTED")
                            .doesNotContain("CANCELLED");
                    assertThat(atProvider).containsKey(id);
                    assertThat(Messages.ledgerRows(SERVICE, id)).isEqualTo(1);
                }
            }
        }
        // Both outcomes happen (the seed fixes the jitter), so the property was exercised from both sides.
        assertThat(cancelledTotal).as("cancels that won").isPositive();
        assertThat(claimedTotal).as("claims that won").isPositive();
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT count(*) FROM (SELECT message_id, seq FROM message_events"
                                + " GROUP BY message_id, seq HAVING count(*) > 1) d"))
                .isZero();
    }
}
