package dev.sendlog.service.controls;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.events.EventType;
import dev.sendlog.events.Lanes;
import dev.sendlog.events.Priority;
import dev.sendlog.events.Shards;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Priority (issue 26) over HTTP against PostgreSQL and Redis: {@code priority} is exactly {@code high} or {@code normal}
 * (400 naming it otherwise, nothing stored), a high message is stored on a shard of the high lane and reads back as
 * {@code "priority": "high"}, a normal one keeps the shard it always had and reads back without the field, and the
 * events a message gets later carry the shard it was stored on. No send worker runs: messages wait where they are.
 */
class PriorityTest {
    private static final int NORMAL_SHARDS = 4;
    private static final int HIGH_SHARDS = 2;
    private static final Lanes LANES = new Lanes(NORMAL_SHARDS, HIGH_SHARDS);

    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
            "components",
            "API,POLLER,MAINTENANCE",
            "pipeline.shards",
            Integer.toString(NORMAL_SHARDS),
            "pipeline.highShards",
            Integer.toString(HIGH_SHARDS));

    /** The Accept header the direct submit path leaves to Jersey: both paths must take and refuse the same. */
    private static final String[] THROUGH_JERSEY = {"Accept", "application/json;q=0.9"};

    private static ApiResponse submit(String fields, String... headers) {
        return SERVICE.api()
                .post(
                        "/v1/messages",
                        "client-a",
                        "{\"to\":\"" + Messages.recipient() + "\",\"body\":\"first, please\"" + fields + "}",
                        headers);
    }

    private static String submitted(String fields, String... headers) {
        ApiResponse r = submit(fields, headers);
        assertThat(r.status()).as(r.raw()).isEqualTo(202);
        return r.json().get("id").asText();
    }

    private static JsonNode message(String id) {
        return SERVICE.api().get("/v1/messages/" + id, "client-a").json();
    }

    private static short storedShard(String id) {
        return (short) Sql.count(SERVICE.dataSource(), "SELECT shard FROM messages WHERE id = '" + id + "'");
    }

    @Test
    void aHighMessageIsStoredOnAHighShardAndReadsAsHighAndANormalOneKeepsItsShard() {
        List<String> high = new ArrayList<>(List.of(
                submitted(",\"priority\":\"high\",\"reference\":\"prio-high\""),
                submitted(",\"priority\":\"high\"", THROUGH_JERSEY)));
        List<String> normal = new ArrayList<>(List.of(
                submitted(",\"reference\":\"prio-normal\""),
                submitted(",\"priority\":\"normal\""),
                submitted(",\"priority\":null", THROUGH_JERSEY)));
        ApiResponse batch = SERVICE.api()
                .post(
                        "/v1/messages/batch",
                        "client-a",
                        "{\"messages\":["
                                + "{\"to\":\"" + Messages.recipient() + "\",\"body\":\"a\",\"priority\":\"high\"},"
                                + "{\"to\":\"" + Messages.recipient() + "\",\"body\":\"b\"},"
                                + "{\"to\":\"" + Messages.recipient() + "\",\"body\":\"c\",\"priority\":\"normal\"}]}");
        assertThat(batch.status()).as(batch.raw()).isEqualTo(202);
        JsonNode results = batch.json().get("results");
        high.add(results.get(0).get("id").asText());
        normal.add(results.get(1).get("id").asText());
        normal.add(results.get(2).get("id").asText());

        for (String id : high) {
            short shard = storedShard(id);
            assertThat(shard)
                    .as(id)
                    .isBetween((short) NORMAL_SHARDS, (short) (NORMAL_SHARDS + HIGH_SHARDS - 1))
                    .isEqualTo(LANES.shardOf(UUID.fromString(id), Priority.HIGH));
            assertThat(message(id).get("priority").asText()).as(id).isEqualTo("high");
        }
        for (String id : normal) {
            assertThat(storedShard(id))
                    .as(id + ": the shard it had before priorities")
                    .isEqualTo(Shards.of(UUID.fromString(id), NORMAL_SHARDS));
            assertThat(message(id).has("priority"))
                    .as(id + ": normal is the default and not shown")
                    .isFalse();
        }
        JsonNode foundHigh = SERVICE.api()
                .get("/v1/messages?reference=prio-high", "client-a")
                .json()
                .get("items");
        assertThat(foundHigh).hasSize(1);
        assertThat(foundHigh.get(0).get("priority").asText()).isEqualTo("high");
        JsonNode foundNormal = SERVICE.api()
                .get("/v1/messages?reference=prio-normal", "support-1")
                .json()
                .get("items");
        assertThat(foundNormal).hasSize(1);
        assertThat(foundNormal.get(0).has("priority")).isFalse();
    }

    @Test
    void everyWayAPriorityIsWrongIsA400NamingItAndNothingIsStored() {
        long before = Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM messages");
        for (String bad : List.of(
                "\"urgent\"",
                "1",
                "\"HIGH\"",
                "\"High\"",
                "\" high\"",
                "\"\"",
                "true",
                "[\"high\"]",
                "{\"level\":\"high\"}")) {
            for (String[] headers : List.of(new String[0], THROUGH_JERSEY)) {
                ApiResponse r = submit(",\"priority\":" + bad, headers);
                assertThat(r.status()).as(bad + ": " + r.raw()).isEqualTo(400);
                assertThat(r.json().get("errors")).as(bad).hasSize(1);
                assertThat(r.json().get("errors").get(0).get("field").asText())
                        .as(bad)
                        .isEqualTo("priority");
                assertThat(r.json().get("errors").get(0).get("problem").asText())
                        .as(bad)
                        .contains("high", "normal");
            }
            ApiResponse batch = SERVICE.api()
                    .post(
                            "/v1/messages/batch",
                            "client-a",
                            "{\"messages\":[{\"to\":\""
                                    + Messages.recipient() + "\",\"body\":\"ok\",\"priority\":\"high\"},{\"to\":\""
                                    + Messages.recipient()
                                    + "\",\"body\":\"b\",\"priority\":" + bad + "}]}");
            assertThat(batch.status()).as(batch.raw()).isEqualTo(400);
            assertThat(batch.json().get("errors").get(0).get("field").asText()).isEqualTo("messages[1].priority");
        }
        assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM messages"))
                .as("nothing stored")
                .isEqualTo(before);
    }

    @Test
    void thePriorityIsPartOfTheRequestAnIdempotencyKeyStandsFor() {
        String to = Messages.recipient();
        Function<String, ApiResponse> send = fields -> SERVICE.api()
                .post(
                        "/v1/messages",
                        "client-a",
                        "{\"to\":\"" + to + "\",\"body\":\"b\"" + fields + "}",
                        "Idempotency-Key",
                        "priority-key");
        Function<String, ApiResponse> sendNormal = fields -> SERVICE.api()
                .post(
                        "/v1/messages",
                        "client-a",
                        "{\"to\":\"" + to + "\",\"body\":\"b\"" + fields + "}",
                        "Idempotency-Key",
                        "normal-key");

        ApiResponse first = send.apply(",\"priority\":\"high\"");
        assertThat(first.status()).as(first.raw()).isEqualTo(202);
        ApiResponse replay = send.apply(",\"priority\":\"high\"");
        assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(replay.json().get("id")).isEqualTo(first.json().get("id"));
        assertThat(send.apply(",\"priority\":\"normal\"").status())
                .as("the same key at normal priority")
                .isEqualTo(409);
        assertThat(send.apply("").status())
                .as("the same key without a priority")
                .isEqualTo(409);

        ApiResponse plain = sendNormal.apply("");
        assertThat(plain.status()).as(plain.raw()).isEqualTo(202);
        ApiResponse named = sendNormal.apply(",\"priority\":\"normal\"");
        assertThat(named.header("Idempotent-Replayed"))
                .as("normal named is normal left out")
                .isEqualTo("true");
        assertThat(named.json().get("id")).isEqualTo(plain.json().get("id"));
        assertThat(sendNormal.apply(",\"priority\":\"high\"").status())
                .as("the same key at high priority")
                .isEqualTo(409);
    }

    /**
     * A scheduled message's DUE re-drive is work a timer appends long after the acceptance, from the message as read
     * back: its row carries the stored shard, so a high message's work stays in the high lane (computed again from the
     * id, it would land on a normal shard and wait behind normal work).
     */
    @Test
    void workAppendedLaterCarriesTheShardTheMessageWasStoredOn() {
        String at = SERVICE.now().plusSeconds(60).toString();
        String high = submitted(",\"priority\":\"high\",\"sendAt\":\"" + at + "\"");
        String normal = submitted(",\"sendAt\":\"" + at + "\"");
        String redriven = "SELECT count(DISTINCT message_id) FROM message_events WHERE type = "
                + EventType.REDRIVEN.code() + " AND message_id IN ('" + high + "', '" + normal + "')";
        Messages.awaitAdvancing(
                SERVICE,
                Duration.ofSeconds(20),
                Duration.ofSeconds(30),
                () -> assertThat(Sql.count(SERVICE.dataSource(), redriven)).isEqualTo(2));

        // Every REDRIVEN row so far: the DUE one, and any publish timeout's re-drive after it (no worker claims here).
        for (String id : List.of(high, normal)) {
            assertThat(Sql.count(
                            SERVICE.dataSource(),
                            "SELECT count(*) FROM message_events e JOIN messages m"
                                    + " ON m.id = e.message_id WHERE e.type = " + EventType.REDRIVEN.code()
                                    + " AND e.message_id = '" + id
                                    + "' AND e.shard IS DISTINCT FROM m.shard"))
                    .as(id + ": re-drives off its stored shard")
                    .isZero();
        }
        assertThat(storedShard(high))
                .isEqualTo(LANES.shardOf(UUID.fromString(high), Priority.HIGH))
                .isGreaterThanOrEqualTo((short) NORMAL_SHARDS);
        assertThat(storedShard(normal)).isEqualTo(Shards.of(UUID.fromString(normal), NORMAL_SHARDS));
        assertThat(message(high).get("priority").asText())
                .as("still high after the re-drive")
                .isEqualTo("high");
    }
}
