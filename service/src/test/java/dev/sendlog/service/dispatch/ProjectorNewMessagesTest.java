package dev.sendlog.service.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import dev.sendlog.simulator.ReceiptMode;
import dev.sendlog.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The projector folds a new message from its ACCEPTED event, without reading the history back: a projector batch of
 * new messages once read every one of them whole, in one query whose plan (with no statistics on a fresh partition)
 * could scan the whole day's messages. What it projects is still exactly the state the history folds to.
 */
class ProjectorNewMessagesTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness()
            .simulator(SimulatorConfig.defaults().toBuilder().latencyMs(5).receiptMode(ReceiptMode.FINAL)
                    .intermediateReceipts(1).receiptDelayMs(10).build());

    @Test
    void newMessagesAreProjectedWithoutReadingTheirHistoriesAndAsTheirHistoriesFold() {
        List<String> ids = Messages.submit(SERVICE, 40);
        String in = "('" + String.join("','", ids) + "')";
        await().atMost(Duration.ofSeconds(60)).until(() -> Sql.count(SERVICE.dataSource(),
                "SELECT count(*) FROM message_status WHERE status = 'DELIVERED' AND message_id IN " + in) == ids.size());

        for (String id : ids) {
            assertThat(SERVICE.api().get("/v1/messages/" + id, "support-1").json().get("status").asText())
                    .as("the status the history folds to, message %s", id).isEqualTo("DELIVERED");
        }
        assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM message_status s WHERE s.message_id IN " + in
                + " AND s.last_seq = (SELECT max(seq) FROM message_events e WHERE e.message_id = s.message_id)"
                + " AND s.tenant = (SELECT m.tenant FROM messages m WHERE m.id = s.message_id)"))
                .as("each row has its message's tenant and the last seq of its history").isEqualTo(ids.size());
        assertThat(SERVICE.admin().get("/metrics", null).json().path("counters").path("projector.cache.misses")
                .path("count").asLong()).as("histories read back by the projector").isZero();
    }
}
