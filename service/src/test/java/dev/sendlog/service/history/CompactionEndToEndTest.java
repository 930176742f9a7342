package dev.sendlog.service.history;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.MutableClock;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import dev.sendlog.simulator.ReceiptMode;
import dev.sendlog.simulator.SimulatorConfig;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Invariant 13 end to end: messages of a day past the retention read the same through the API before and after the
 * day is compacted (GET one, and its whole history), the projection rebuilt from the log equals the live one, and a
 * message still waiting for its final receipt takes it after compaction.
 */
class CompactionEndToEndTest {
    private static final MutableClock CLOCK = new MutableClock(Instant.now().minus(Duration.ofDays(40)));

    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
                    CLOCK,
                    "compaction.retentionDays",
                    "30",
                    "pipeline.reconcileWindow",
                    "1000d",
                    "receipts.holdWindow",
                    "1000d")
            .simulator(SimulatorConfig.defaults().toBuilder()
                    .latencyMs(5)
                    .receiptMode(ReceiptMode.FINAL)
                    .intermediateReceipts(1)
                    .receiptDelayMs(10)
                    .build());

    private static Map<String, String> answers(List<String> ids) {
        Map<String, String> answers = new LinkedHashMap<>();
        for (String id : ids) {
            answers.put(
                    id + " one",
                    SERVICE.api().get("/v1/messages/" + id, "support-1").raw());
            answers.put(
                    id + " events",
                    SERVICE.api()
                            .get("/v1/messages/" + id + "/events", "support-1")
                            .raw());
        }
        return answers;
    }

    @Test
    void historiesReadTheSameAfterCompactionAndAMessageStillWaitingTakesItsReceipt() {
        List<String> delivered = Messages.submit(SERVICE, 30);
        for (String id : delivered) {
            Messages.awaitStatus(SERVICE, id, "DELIVERED", Duration.ofSeconds(60));
        }
        SERVICE.simulator()
                .updateConfig(SERVICE.simulator().config().toBuilder()
                        .receiptMode(ReceiptMode.INTERMEDIATE_ONLY)
                        .build());
        String waiting = Messages.submitOne(SERVICE, Messages.recipient());
        Messages.awaitStatus(SERVICE, waiting, "IN_TRANSIT", Duration.ofSeconds(30));
        List<String> all = new java.util.ArrayList<>(delivered);
        all.add(waiting);
        Map<String, String> before = answers(all);
        long eventsBefore = Sql.count(
                SERVICE.dataSource(),
                "SELECT count(*) FROM message_events WHERE message_id IN ('" + String.join("','", all) + "')");

        CLOCK.advance(Duration.ofDays(40));
        assertThat(SERVICE.admin()
                        .post("/tasks/ensure-partitions", "admin-1", "")
                        .status())
                .isEqualTo(200);
        ApiResponse compact = SERVICE.admin().post("/tasks/compact", "admin-1", "");
        assertThat(compact.status()).as(compact.raw()).isEqualTo(200);
        assertThat(compact.raw()).contains("-");
        assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM compacted_days"))
                .isGreaterThanOrEqualTo(1);
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT count(*) FROM message_events WHERE message_id IN ('" + String.join("','", all) + "')"))
                .as("one snapshot per message")
                .isEqualTo(all.size())
                .isLessThan(eventsBefore);

        assertThat(answers(all)).isEqualTo(before);

        String providerId = SERVICE.api()
                .get("/v1/messages/" + waiting, "support-1")
                .json()
                .get("providerId")
                .asText();
        byte[] body = ("{\"id\":\"" + providerId + "\",\"reference\":\"" + waiting
                        + "\",\"status\":\"DELIVRD\",\"timestamp\":\"2611300931\"}")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(SERVICE.api()
                        .postBytes(
                                "/v1/callbacks/sim",
                                null,
                                "application/json",
                                body,
                                "X-Signature",
                                dev.sendlog.service.receipts.CallbackSignature.sign("sim-secret", body))
                        .status())
                .isEqualTo(200);
        Messages.awaitStatus(SERVICE, waiting, "DELIVERED", Duration.ofSeconds(30));
        JsonNode events = SERVICE.api()
                .get("/v1/messages/" + waiting + "/events", "support-1")
                .json()
                .get("events");
        assertThat(events.get(events.size() - 1).get("type").asText()).isEqualTo("RECEIPT");
    }

    /** What search by status reads, the final index, is rebuilt from the log: lost or wrong marks are put right. */
    @Test
    void aRebuiltFinalIndexEqualsTheLiveOne() {
        List<String> ids = Messages.submit(SERVICE, 20);
        for (String id : ids) {
            Messages.awaitStatus(SERVICE, id, "DELIVERED", Duration.ofSeconds(60));
        }
        String in = "('" + String.join("','", ids) + "')";
        String snapshot =
                "SELECT string_agg(concat_ws('|', message_id, seq, status, tenant), E'\\n' ORDER BY message_id, seq) "
                        + "FROM message_events WHERE status IS NOT NULL AND message_id IN " + in;
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT count(*) FROM message_events WHERE status = 1 AND message_id IN " + in))
                .as("each DELIVERED message marked once")
                .isEqualTo(ids.size());
        String live = text(snapshot);
        Sql.exec(
                SERVICE.dataSource(),
                "UPDATE message_events SET status = NULL, tenant = NULL WHERE message_id IN ('" + ids.get(0) + "', '"
                        + ids.get(1) + "')");
        Sql.exec(
                SERVICE.dataSource(),
                "UPDATE message_events SET status = 5, tenant = 'acme' WHERE seq = 3 AND message_id = '" + ids.get(2)
                        + "'");
        assertThat(text(snapshot)).isNotEqualTo(live);
        assertThat(SERVICE.admin()
                        .post("/tasks/rebuild-projection", "admin-1", "")
                        .status())
                .isEqualTo(200);
        assertThat(text(snapshot)).isEqualTo(live);
    }

    private static String text(String sql) {
        try (var c = SERVICE.dataSource().getConnection();
                var st = c.createStatement();
                var rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
