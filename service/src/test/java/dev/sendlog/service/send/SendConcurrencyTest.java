package dev.sendlog.service.send;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import dev.sendlog.simulator.ReceiptMode;
import dev.sendlog.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code pipeline.sendWorker.concurrency} bounds provider calls in flight, counted by the simulator itself, while the
 * worker holds {@code jobsPerCallSlot} times as many jobs so that their database writes overlap other jobs' calls.
 * Two gateways point at the one simulator: each gateway's HTTP pool alone would allow {@code concurrency} calls, so
 * only the worker's own bound keeps the total there.
 */
class SendConcurrencyTest {
    private static final int CONCURRENCY = 4;

    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
                    "pipeline.sendWorker.concurrency",
                    Integer.toString(CONCURRENCY),
                    "pipeline.sendWorker.jobsPerCallSlot",
                    "3",
                    "gateways.other.token",
                    "sim-token")
            .gatewayOnSimulator("other")
            .simulator(SimulatorConfig.defaults().toBuilder()
                    .latencyMs(100)
                    .receiptMode(ReceiptMode.NONE)
                    .build());

    @Test
    void providerCallsInFlightNeverExceedTheConcurrencyWhileMoreJobsAreHeld() {
        SERVICE.simulator().reset();
        List<String> ids = new ArrayList<>(Messages.submit(SERVICE, 30));
        StringBuilder body = new StringBuilder("{\"messages\":[");
        for (int i = 0; i < 30; i++) {
            body.append(i == 0 ? "" : ",")
                    .append("{\"to\":\"")
                    .append(Messages.recipient())
                    .append("\",\"body\":\"through the other gateway\",\"gateway\":\"other\"}");
        }
        ApiResponse r = SERVICE.api()
                .post("/v1/messages/batch", "client-a", body.append("]}").toString());
        assertThat(r.status()).as(r.raw()).isEqualTo(202);
        r.json().get("results").forEach(item -> ids.add(item.get("id").asText()));
        String in = "'" + String.join("','", ids) + "'";
        Messages.awaitCount(
                SERVICE,
                "SELECT count(DISTINCT message_id) FROM message_events WHERE type = 4" + " AND message_id IN (" + in
                        + ")",
                ids.size(),
                Duration.ofSeconds(60));

        assertThat(SERVICE.simulator().stats().uniqueKeys()).isEqualTo(ids.size());
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT count(*) FROM messages WHERE gateway = 'other' AND id IN (" + in + ")"))
                .isEqualTo(30);
        // Up to 12 jobs were held at once over two gateways; the calls among them never went past 4 (and the bound was
        // used).
        assertThat(SERVICE.simulator().stats().maxConcurrentSubmits()).isBetween(2L, (long) CONCURRENCY);
    }
}
