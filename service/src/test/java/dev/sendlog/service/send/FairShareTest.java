package dev.sendlog.service.send;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
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
 * Fair shares between tenants (issue 29): a tenant with a weight has a lane of its own (shards, stream, workers), and
 * the gateway's rate is handed out across the lanes with work waiting by weight. Tenant acme floods a gateway that
 * takes 20 a second; tenant globex (weight 1) then sends a few: globex's messages go out while acme's backlog is still
 * there, with only a handful of acme's sent in between (without shares they wait behind acme's backlog, or at least
 * behind the hundred-odd takes acme's workers hold in line for the gateway's tokens), and acme still uses every token
 * globex leaves: all of its messages go out, each charged once.
 */
class FairShareTest {
    private static final int FLOOD = 300;
    private static final int FEW = 5;
    private static final String ACME_CHARGED =
            "SELECT count(*) FROM ledger l JOIN messages m ON m.id = l.effect_key WHERE m.tenant = 'acme'";

    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
                    "tenants.globex.weight", "1", "gateways.sim.maxPerSecond", "20")
            .simulator(SimulatorConfig.defaults().toBuilder()
                    .latencyMs(5)
                    .receiptMode(ReceiptMode.NONE)
                    .build());

    @Test
    void aWeightedTenantsFewMessagesGoOutPastAnotherTenantsFloodWhichStillUsesWhatTheyLeave() {
        List<String> flood = Messages.submit(SERVICE, FLOOD);
        Messages.awaitCount(SERVICE, "SELECT least(count(*), 20) FROM ledger", 20, Duration.ofSeconds(60));

        long acmeBefore = Sql.count(SERVICE.dataSource(), ACME_CHARGED);
        List<String> few = submitAsGlobex(FEW);
        for (String id : few) {
            Messages.awaitStatus(SERVICE, id, "SENT", Duration.ofSeconds(60));
        }
        long acmeBetween = Sql.count(SERVICE.dataSource(), ACME_CHARGED) - acmeBefore;
        assertThat(acmeBetween)
                .as(
                        "acme's messages sent while globex's %d went out (of %d acme still waiting)",
                        FEW, FLOOD - acmeBefore)
                .isLessThan(40);
        assertThat(FLOOD - acmeBefore - acmeBetween)
                .as("acme's backlog still there")
                .isGreaterThan(100);

        // Each of globex's went through its own lane: its shards follow the normal and high lanes'.
        for (String id : few) {
            long shard = Sql.count(SERVICE.dataSource(), "SELECT shard FROM messages WHERE id = '" + id + "'");
            assertThat(shard)
                    .as("globex's shard")
                    .isGreaterThanOrEqualTo(
                            SERVICE.configuration().pipeline.shards + SERVICE.configuration().pipeline.highShards);
        }
        // acme uses what globex leaves: all of its flood goes out, each charged once.
        Messages.awaitCount(SERVICE, ACME_CHARGED, FLOOD, Duration.ofSeconds(90));
        assertThat(SERVICE.simulator().stats().uniqueKeys()).isEqualTo(FLOOD + FEW);
        assertThat(Messages.ledgerRows(SERVICE, flood.get(FLOOD - 1))).isEqualTo(1);
    }

    private static List<String> submitAsGlobex(int n) {
        StringBuilder body = new StringBuilder("{\"messages\":[");
        for (int i = 0; i < n; i++) {
            body.append(i == 0 ? "" : ",")
                    .append("{\"to\":\"+4915100000")
                    .append(100 + i)
                    .append("\",\"body\":\"code\"}");
        }
        ApiResponse r = SERVICE.api()
                .post("/v1/messages/batch", "client-b", body.append("]}").toString());
        assertThat(r.status()).as(r.raw()).isEqualTo(202);
        List<String> ids = new ArrayList<>();
        for (JsonNode item : r.json().get("results")) {
            ids.add(item.get("id").asText());
        }
        return ids;
    }
}
