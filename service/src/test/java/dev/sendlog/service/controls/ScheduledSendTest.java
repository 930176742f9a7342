package dev.sendlog.service.controls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scheduled send (issue 26), end to end over HTTP with every component running against PostgreSQL, Redis and the
 * provider simulator: a message with a {@code sendAt} waits as SCHEDULED (nothing published, the provider never sees
 * it) until its time, then takes the usual path; a scheduled message can be cancelled (never submitted) or expire
 * before its time (EXPIRED, never submitted); a past sendAt means now; bad sendAts are 400. The service's clock is the
 * test's and stands still unless moved.
 */
class ScheduledSendTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness();

    private static ApiResponse submit(String fields) {
        return SERVICE.api()
                .post(
                        "/v1/messages",
                        "client-a",
                        "{\"to\":\"" + Messages.recipient() + "\",\"body\":\"later, please\"" + fields + "}");
    }

    private static String submitted(String fields) {
        ApiResponse r = submit(fields);
        assertThat(r.status()).as(r.raw()).isEqualTo(202);
        return r.json().get("id").asText();
    }

    private static JsonNode message(String id) {
        return SERVICE.api().get("/v1/messages/" + id, "client-a").json();
    }

    private static List<String> types(String id) {
        return Messages.history(SERVICE, id).stream()
                .map(e -> e.get("type").asText())
                .toList();
    }

    private static long scheduledRows(String id) {
        return Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM scheduled WHERE message_id = '" + id + "'");
    }

    @Test
    void aScheduledMessageWaitsUntilItsSendAtThenIsSent() {
        // The service's clock follows the wall clock from here, so the simulator's record time (wall clock) and the
        // sendAt (service clock) compare through one fixed offset.
        Duration offset = Duration.between(Instant.now(), SERVICE.now());
        Instant sendAt = SERVICE.now().plusSeconds(3).truncatedTo(ChronoUnit.MILLIS);
        String id = submitted(",\"sendAt\":\"" + sendAt + "\",\"reference\":\"scheduled-1\"");
        String control = submitted("");

        JsonNode scheduled = message(id);
        assertThat(scheduled.get("status").asText()).isEqualTo("SCHEDULED");
        assertThat(Instant.parse(scheduled.get("sendAt").asText())).isEqualTo(sendAt);
        assertThat(message(control).has("sendAt"))
                .as("no sendAt: the field is absent")
                .isFalse();
        assertThat(SERVICE.api()
                        .get("/v1/messages?status=SCHEDULED", "client-a")
                        .json()
                        .get("items"))
                .extracting(i -> i.get("id").asText())
                .contains(id)
                .doesNotContain(control);
        assertThat(types(id)).containsExactly("ACCEPTED", "SCHEDULED");

        // The pipeline runs (the control message goes out) while the scheduled one stays where it is: not published,
        // not at the provider.
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> {
                    SERVICE.clock().set(Instant.now().plus(offset));
                    assertThat(message(control).get("status").asText()).isEqualTo("SENT");
                });
        if (SERVICE.now().isBefore(sendAt)) {
            assertThat(message(id).get("status").asText()).isEqualTo("SCHEDULED");
            assertThat(Messages.publications(SERVICE, id)).isZero();
            assertThat(Messages.providerRecords(SERVICE)).doesNotContainKey(id);
        }

        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> {
                    SERVICE.clock().set(Instant.now().plus(offset));
                    assertThat(message(id).get("status").asText()).isEqualTo("SENT");
                });
        long recordedMicros = Messages.providerRecords(SERVICE)
                .get(id)
                .get("recordedAtMicros")
                .asLong();
        Instant recorded = Instant.EPOCH.plus(recordedMicros, ChronoUnit.MICROS).plus(offset);
        assertThat(recorded)
                .as("the provider first saw it at or after its sendAt")
                .isAfterOrEqualTo(sendAt);

        List<JsonNode> history = Messages.history(SERVICE, id);
        assertThat(history)
                .extracting(e -> e.get("type").asText())
                .containsSubsequence("ACCEPTED", "SCHEDULED", "REDRIVEN", "PUBLISHED", "CLAIMED", "PROVIDER_ACCEPTED");
        JsonNode due = history.stream()
                .filter(e -> e.get("type").asText().equals("REDRIVEN"))
                .findFirst()
                .orElseThrow();
        assertThat(due.get("data").get("reason").asText()).isEqualTo("DUE");
        assertThat(due.get("actor").asText()).isEqualTo("timer");
        assertThat(Instant.parse(due.get("at").asText())).isAfterOrEqualTo(sendAt);
        assertThat(history.get(1).get("data").get("sendAt").asText())
                .isEqualTo(scheduled.get("sendAt").asText());
        assertThat(Messages.ledgerRows(SERVICE, id))
                .as("charged once, as any sent message")
                .isEqualTo(1);
        assertThat(scheduledRows(id))
                .as("the due row is gone with its work appended")
                .isZero();
    }

    @Test
    void aSendAtInThePastMeansNow() {
        Instant past = SERVICE.now().minusSeconds(3600).truncatedTo(ChronoUnit.SECONDS);
        String id = submitted(",\"sendAt\":\"" + past + "\"");
        assertThat(scheduledRows(id)).isZero();
        Messages.awaitStatus(SERVICE, id, "SENT", Duration.ofSeconds(30));
        assertThat(Instant.parse(message(id).get("sendAt").asText()))
                .as("kept as sent")
                .isEqualTo(past);
        assertThat(types(id)).doesNotContain("SCHEDULED");
    }

    @Test
    void aCancelledScheduledMessageNeverReachesTheProvider() {
        Instant sendAt = SERVICE.now().plusSeconds(60);
        String cancelled = submitted(",\"sendAt\":\"" + sendAt + "\"");
        String control = submitted(",\"sendAt\":\"" + sendAt + "\"");
        ApiResponse r = SERVICE.api().post("/v1/messages/" + cancelled + "/cancel", "client-a", "");
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        assertThat(r.json().get("status").asText()).isEqualTo("CANCELLED");

        // Past the sendAt: the control goes out, the cancelled one is only dropped from the due rows.
        Messages.awaitAdvancing(SERVICE, Duration.ofSeconds(30), Duration.ofSeconds(30), () -> {
            assertThat(message(control).get("status").asText()).isEqualTo("SENT");
            assertThat(scheduledRows(cancelled)).isZero();
        });
        assertThat(message(cancelled).get("status").asText()).isEqualTo("CANCELLED");
        assertThat(types(cancelled)).containsExactly("ACCEPTED", "SCHEDULED", "CANCELLED");
        assertThat(Messages.publications(SERVICE, cancelled)).isZero();
        assertThat(Messages.providerRecords(SERVICE))
                .doesNotContainKey(cancelled)
                .containsKey(control);
        assertThat(Messages.ledgerRows(SERVICE, cancelled)).isZero();
        ApiResponse late = SERVICE.api().post("/v1/messages/" + control + "/cancel", "client-a", "");
        assertThat(late.status()).as("sent: too late").isEqualTo(409);
    }

    /**
     * Cancels jittered around the moment scheduled messages come due (the due scan appends their REDRIVEN, the poller
     * publishes, the worker claims): a 200 means CANCELLED, never claimed, never at the provider, never charged; a 409
     * means a worker claimed it first and it went on to the provider, charged once. No seq is written twice.
     */
    @Test
    void aCancelRacingTheDueScanAndTheClaimEndsEitherCancelledUnsentOrSentOnce() throws Exception {
        java.util.Random random = new java.util.Random(2626);
        Instant sendAt = SERVICE.now().plusSeconds(1);
        List<String> ids = new java.util.ArrayList<>();
        for (int i = 0; i < 30; i++) {
            ids.add(submitted(",\"sendAt\":\"" + sendAt + "\""));
        }
        java.util.Map<String, Integer> answers = new java.util.concurrent.ConcurrentHashMap<>();
        // A thread per cancel (and one for the clock): each is sent at its own jittered moment, not queued behind
        // others.
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(ids.size() + 1);
        try {
            // The clock moves past the sendAt (all due: the next timer round takes them) 400 ms into the 1.2 s of
            // jittered cancels, so that both outcomes occur whatever the machine's speed: the cancels before it find
            // the messages waiting and win; those well after it find them claimed, since a due scan, a publish and a
            // claim take far less than the 800 ms left (in CI, a pipeline quicker than the earliest jittered cancel
            // once left no cancel winning when the clock moved first).
            java.util.concurrent.Future<?> due = pool.submit(() -> {
                Thread.sleep(400); // when the messages come due, inside the jitter window
                SERVICE.clock().advance(Duration.ofSeconds(2));
                return null;
            });
            List<java.util.concurrent.Future<?>> sent = new java.util.ArrayList<>();
            sent.add(due);
            for (String id : ids) {
                long delay = random.nextInt(1200);
                sent.add(pool.submit(() -> {
                    Thread.sleep(delay); // jitter around the due scan and the claims
                    answers.put(
                            id,
                            SERVICE.api()
                                    .post("/v1/messages/" + id + "/cancel", "client-a", "")
                                    .status());
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> f : sent) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        int cancelled = 0;
        int claimed = 0;
        for (String id : ids) {
            assertThat(answers.get(id)).as(id).isIn(200, 409);
            if (answers.get(id) == 409) {
                Messages.awaitStatus(SERVICE, id, "SENT", Duration.ofSeconds(30));
            }
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> ids.stream().allMatch(id -> scheduledRows(id) == 0));
        java.util.Map<String, JsonNode> atProvider = Messages.providerRecords(SERVICE);
        for (String id : ids) {
            List<String> types = types(id);
            if (answers.get(id) == 200) {
                cancelled++;
                assertThat(types)
                        .as(id)
                        .startsWith("ACCEPTED", "SCHEDULED")
                        .endsWith("CANCELLED")
                        .doesNotContain("CLAIMED", "PROVIDER_ACCEPTED");
                assertThat(atProvider).doesNotContainKey(id);
                assertThat(Messages.ledgerRows(SERVICE, id)).isZero();
            } else {
                claimed++;
                assertThat(types)
                        .as(id)
                        .containsSubsequence("ACCEPTED", "SCHEDULED", "REDRIVEN", "CLAIMED", "PROVIDER_ACCEPTED")
                        .doesNotContain("CANCELLED");
                assertThat(atProvider).containsKey(id);
                assertThat(Messages.ledgerRows(SERVICE, id)).isEqualTo(1);
            }
        }
        // Both outcomes happen (the seed fixes the jitter), so the property was exercised from both sides.
        assertThat(cancelled).as("cancels that won").isPositive();
        assertThat(claimed).as("claims that won").isPositive();
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT count(*) FROM (SELECT message_id, seq FROM message_events"
                                + " GROUP BY message_id, seq HAVING count(*) > 1) d"))
                .isZero();
    }

    @Test
    void aScheduledMessageWhoseValidityEndsFirstExpiresUnsent() {
        String id = submitted(",\"sendAt\":\"" + SERVICE.now().plusSeconds(600) + "\",\"ttlSeconds\":60");
        assertThat(message(id).get("status").asText()).isEqualTo("SCHEDULED");
        Messages.awaitAdvancing(
                SERVICE,
                Duration.ofSeconds(20),
                Duration.ofSeconds(30),
                () -> assertThat(message(id).get("status").asText()).isEqualTo("EXPIRED"));
        List<JsonNode> history = Messages.history(SERVICE, id);
        assertThat(history).extracting(e -> e.get("type").asText()).containsExactly("ACCEPTED", "SCHEDULED", "EXPIRED");
        assertThat(history.getLast().get("actor").asText()).isEqualTo("timer");
        assertThat(scheduledRows(id)).isZero();
        // Its sendAt passes too: nothing changes, nothing is sent or charged, and search by EXPIRED finds it.
        SERVICE.clock().advance(Duration.ofMinutes(15));
        assertThat(SERVICE.api()
                        .get("/v1/messages?status=EXPIRED", "client-a")
                        .json()
                        .get("items"))
                .extracting(i -> i.get("id").asText())
                .contains(id);
        assertThat(message(id).get("status").asText()).isEqualTo("EXPIRED");
        assertThat(Messages.publications(SERVICE, id)).isZero();
        assertThat(Messages.providerRecords(SERVICE)).doesNotContainKey(id);
        assertThat(Messages.ledgerRows(SERVICE, id)).isZero();
    }

    @Test
    void everyWayASendAtIsWrongIsA400AndNothingIsStored() {
        Instant now = SERVICE.now();
        long before = Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM messages");
        record Bad(String fields, String problem) {}
        for (Bad bad : List.of(
                new Bad(",\"sendAt\":\"" + now.plus(Duration.ofDays(30)).plusSeconds(2) + "\"", "30 days"),
                new Bad(",\"sendAt\":\"tomorrow\"", "RFC 3339"),
                new Bad(",\"sendAt\":\"2030-01-01T00:00:00\"", "RFC 3339"),
                new Bad(",\"sendAt\":\"2030-01-01\"", "RFC 3339"),
                new Bad(",\"sendAt\":1893456000", "string"),
                new Bad(",\"sendAt\":true", "string"))) {
            ApiResponse r = submit(bad.fields());
            assertThat(r.status()).as(bad.fields() + ": " + r.raw()).isEqualTo(400);
            assertThat(r.json().get("errors").get(0).get("field").asText())
                    .as(bad.fields())
                    .isEqualTo("sendAt");
            assertThat(r.json().get("errors").get(0).get("problem").asText())
                    .as(bad.fields())
                    .contains(bad.problem());
            ApiResponse batch = SERVICE.api()
                    .post(
                            "/v1/messages/batch",
                            "client-a",
                            "{\"messages\":[{\"to\":\""
                                    + Messages.recipient() + "\",\"body\":\"ok\"},{\"to\":\"" + Messages.recipient()
                                    + "\",\"body\":\"b\""
                                    + bad.fields() + "}]}");
            assertThat(batch.status()).as(batch.raw()).isEqualTo(400);
            assertThat(batch.json().get("errors").get(0).get("field").asText()).isEqualTo("messages[1].sendAt");
        }
        assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM messages"))
                .as("nothing stored")
                .isEqualTo(before);
        assertThat(submit(",\"sendAt\":\"" + now.plus(Duration.ofDays(30)) + "\"")
                        .status())
                .as("the edge")
                .isEqualTo(202);
        assertThat(submit(",\"sendAt\":null").status()).as("null is absent").isEqualTo(202);

        // The sendAt is part of the request an idempotency key stands for.
        String to = Messages.recipient();
        java.util.function.Function<String, ApiResponse> send = fields -> SERVICE.api()
                .post(
                        "/v1/messages",
                        "client-a",
                        "{\"to\":\"" + to + "\",\"body\":\"b\"" + fields + "}",
                        "Idempotency-Key",
                        "send-at-key");
        String at = now.plusSeconds(3600).toString();
        assertThat(send.apply(",\"sendAt\":\"" + at + "\"").status()).isEqualTo(202);
        assertThat(send.apply(",\"sendAt\":\"" + at + "\"").header("Idempotent-Replayed"))
                .isEqualTo("true");
        assertThat(send.apply(",\"sendAt\":\"" + now.plusSeconds(3601) + "\"").status())
                .as("another time")
                .isEqualTo(409);
        assertThat(send.apply("").status()).as("without one").isEqualTo(409);
    }
}
