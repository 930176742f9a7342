package dev.sendlog.service.controls;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import dev.sendlog.simulator.ReceiptMode;
import dev.sendlog.simulator.SimulatorConfig;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A message's validity (issue 26), end to end over HTTP with every component running: {@code validUntil} or
 * {@code ttlSeconds} kept on the message, shown, passed to the provider (the simulator records it); a message retrying
 * past its validity is EXPIRED by the timer without being submitted again, and never charged; bad validities are 400.
 * The service's clock is the test's and stands still unless moved.
 */
class ValidityTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness();

    private static final SimulatorConfig NORMAL = SimulatorConfig.defaults().toBuilder()
            .latencyMs(5)
            .receiptMode(ReceiptMode.NONE)
            .build();

    @AfterEach
    void providerBackToNormal() {
        SERVICE.simulator().updateConfig(NORMAL);
    }

    private static ApiResponse submit(String fields) {
        return SERVICE.api()
                .post(
                        "/v1/messages",
                        "client-a",
                        "{\"to\":\"" + Messages.recipient() + "\",\"body\":\"valid for a while\"" + fields + "}");
    }

    private static JsonNode message(String id) {
        return SERVICE.api().get("/v1/messages/" + id, "client-a").json();
    }

    @Test
    void aValidityIsKeptShownAndPassedToTheProvider() {
        Instant until = SERVICE.now().plusSeconds(3600).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        ApiResponse r = submit(",\"validUntil\":\"" + until + "\",\"reference\":\"valid-1\"");
        assertThat(r.status()).as(r.raw()).isEqualTo(202);
        String id = r.json().get("id").asText();
        ApiResponse ttl = submit(",\"ttlSeconds\":600");
        assertThat(ttl.status()).as(ttl.raw()).isEqualTo(202);
        String ttlId = ttl.json().get("id").asText();
        String none = submit("").json().get("id").asText();

        assertThat(Instant.parse(message(id).get("validUntil").asText())).isEqualTo(until);
        assertThat(SERVICE.api()
                        .get("/v1/messages?reference=valid-1", "client-a")
                        .json()
                        .get("items")
                        .get(0)
                        .get("validUntil")
                        .asText())
                .isEqualTo(message(id).get("validUntil").asText());
        Instant accepted = Instant.parse(message(ttlId).get("acceptedAt").asText());
        assertThat(Duration.between(
                                accepted,
                                Instant.parse(message(ttlId).get("validUntil").asText()))
                        .toSeconds())
                .as("ttlSeconds counts from acceptance")
                .isBetween(599L, 600L);
        assertThat(message(none).has("validUntil"))
                .as("no validity: the field is absent")
                .isFalse();

        for (String sent : List.of(id, ttlId, none)) {
            Messages.awaitStatus(SERVICE, sent, "SENT", Duration.ofSeconds(30));
        }
        assertThat(Instant.parse(Messages.providerRecords(SERVICE)
                        .get(id)
                        .get("validUntil")
                        .asText()))
                .isEqualTo(until);
        assertThat(Instant.parse(Messages.providerRecords(SERVICE)
                        .get(ttlId)
                        .get("validUntil")
                        .asText()))
                .isEqualTo(Instant.parse(message(ttlId).get("validUntil").asText()));
        assertThat(Messages.providerRecords(SERVICE).get(none).get("validUntil").isNull())
                .isTrue();
    }

    /**
     * A submit in flight when the validity passes is decided by the provider's answer (issue 26): the provider answers
     * 200 after the clock has moved past the validity, and the message is SENT and charged once, never EXPIRED (the
     * timers do not expire a message a worker holds, and the worker does not second-guess an answer it got).
     */
    @Test
    void aSubmitInFlightWhenTheValidityPassesIsDecidedByTheProvidersAnswer() {
        SERVICE.simulator().updateConfig(NORMAL.toBuilder().latencyMs(1_500).build());
        String id = submit(",\"ttlSeconds\":1").json().get("id").asText();
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> Messages.events(SERVICE, id, "CLAIMED") == 1);
        // Claimed (its validity checked), and its submit on the way to a provider that answers after 1.5 s: the
        // validity passes while it is in flight, and the timers run at the new time meanwhile. 3 s stays inside the
        // claim's deadline (the harness's claimTimeout, 5 s): a claim that outlives it is the other case, a worker
        // presumed gone, whose
        // message is re-driven and may expire before the late answer still records it
        // (Decisions.shouldRecordAcceptance).
        SERVICE.clock().advance(Duration.ofSeconds(3));
        Messages.awaitStatus(SERVICE, id, "SENT", Duration.ofSeconds(30));
        assertThat(Messages.events(SERVICE, id, "EXPIRED"))
                .as("%s", Messages.history(SERVICE, id))
                .isZero();
        assertThat(Messages.ledgerRows(SERVICE, id)).as("charged once").isEqualTo(1);
        assertThat(Messages.providerRecords(SERVICE).get(id))
                .as("the provider took it")
                .isNotNull();
        // And it stays SENT: a timer that comes due later does not expire a message the provider has.
        SERVICE.clock().advance(Duration.ofMinutes(10));
        Messages.awaitStatus(SERVICE, id, "SENT", Duration.ofSeconds(5));
        assertThat(Messages.events(SERVICE, id, "EXPIRED")).isZero();
    }

    @Test
    void aMessageRetryingPastItsValidityExpiresWithoutAnotherSubmitAndIsNeverCharged() {
        SERVICE.simulator()
                .updateConfig(NORMAL.toBuilder().transientErrorRate(1.0).build());
        String id = submit(",\"ttlSeconds\":5").json().get("id").asText();
        Messages.awaitStatus(SERVICE, id, "RETRYING", Duration.ofSeconds(30));
        // The provider would take it now, but its validity passes before the retry can happen: the clock jumps past
        // both.
        SERVICE.simulator().updateConfig(NORMAL);
        SERVICE.clock().advance(Duration.ofSeconds(10));
        Messages.awaitStatus(SERVICE, id, "EXPIRED", Duration.ofSeconds(30));

        List<JsonNode> history = Messages.history(SERVICE, id);
        assertThat(history)
                .extracting(e -> e.get("type").asText())
                .containsSubsequence("CLAIMED", "ATTEMPT_FAILED", "EXPIRED")
                .doesNotContain("PROVIDER_ACCEPTED")
                .containsOnlyOnce("CLAIMED");
        assertThat(history.getLast().get("actor").asText())
                .as("the timer, no worker")
                .isEqualTo("timer");
        assertThat(message(id).get("lastError").asText()).contains("validity");
        assertThat(Messages.ledgerRows(SERVICE, id)).isZero();
        assertThat(Messages.providerRecords(SERVICE)).doesNotContainKey(id);
        // Final and findable: it stays EXPIRED and search by the status finds it.
        SERVICE.clock().advance(Duration.ofMinutes(5));
        assertThat(SERVICE.api()
                        .get("/v1/messages?status=EXPIRED", "client-a")
                        .json()
                        .get("items"))
                .extracting(i -> i.get("id").asText())
                .contains(id);
        assertThat(message(id).get("status").asText()).isEqualTo("EXPIRED");
    }

    @Test
    void everyWayAValidityIsWrongIsA400AndNothingIsStored() {
        Instant now = SERVICE.now();
        long before = Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM messages");
        record Bad(String fields, String field, String problem) {}
        for (Bad bad : List.of(
                new Bad(",\"validUntil\":\"" + now.minusSeconds(1) + "\"", "validUntil", "not in the future"),
                new Bad(",\"validUntil\":\"" + now + "\"", "validUntil", "not in the future"),
                new Bad(",\"validUntil\":\"tomorrow\"", "validUntil", "RFC 3339"),
                new Bad(",\"validUntil\":\"2030-01-01T00:00:00\"", "validUntil", "RFC 3339"),
                new Bad(",\"validUntil\":\"2030-01-01\"", "validUntil", "RFC 3339"),
                new Bad(",\"validUntil\":1893456000", "validUntil", "string"),
                new Bad(",\"validUntil\":\"" + now.plusSeconds(259_201) + "\"", "validUntil", "72 hours"),
                new Bad(",\"validUntil\":\"" + now.plusSeconds(60) + "\",\"ttlSeconds\":60", "ttlSeconds", "not both"),
                new Bad(",\"ttlSeconds\":0", "ttlSeconds", "1 to 259200"),
                new Bad(",\"ttlSeconds\":259201", "ttlSeconds", "1 to 259200"),
                new Bad(",\"ttlSeconds\":1.5", "ttlSeconds", "whole number"),
                new Bad(",\"ttlSeconds\":\"60\"", "ttlSeconds", "whole number"))) {
            ApiResponse r = submit(bad.fields());
            assertThat(r.status()).as(bad.fields() + ": " + r.raw()).isEqualTo(400);
            assertThat(r.json().get("errors").get(0).get("field").asText())
                    .as(bad.fields())
                    .isEqualTo(bad.field());
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
            assertThat(batch.json().get("errors").get(0).get("field").asText()).isEqualTo("messages[1]." + bad.field());
        }
        assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM messages"))
                .as("nothing stored")
                .isEqualTo(before);
        assertThat(submit(",\"validUntil\":\"" + now.plusSeconds(259_200) + "\"")
                        .status())
                .as("the edge")
                .isEqualTo(202);
        assertThat(submit(",\"validUntil\":null,\"ttlSeconds\":null").status())
                .as("null is absent")
                .isEqualTo(202);
        assertThat(submit(",\"ttlSeconds\":259200").status()).isEqualTo(202);
    }

    @Test
    void theValidityIsPartOfTheRequestAnIdempotencyKeyStandsFor() {
        String to = Messages.recipient();
        java.util.function.Function<String, ApiResponse> send = fields -> SERVICE.api()
                .post(
                        "/v1/messages",
                        "client-a",
                        "{\"to\":\"" + to + "\",\"body\":\"b\"" + fields + "}",
                        "Idempotency-Key",
                        "validity-key");
        assertThat(send.apply(",\"ttlSeconds\":60").status()).isEqualTo(202);
        assertThat(send.apply(",\"ttlSeconds\":60").header("Idempotent-Replayed"))
                .isEqualTo("true");
        assertThat(send.apply(",\"ttlSeconds\":61").status()).as("another ttl").isEqualTo(409);
        assertThat(send.apply("").status()).as("without one").isEqualTo(409);
    }
}
