package dev.sendlog.service.scale;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sendlog.infra.RedisEndpoint;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.simulator.ReceiptMode;
import dev.sendlog.simulator.SimulatorConfig;
import dev.sendlog.testkit.LocalRedisCluster;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The queue stores on a three-node Redis Cluster through Lettuce's cluster client: messages go out and their
 * receipts come back, and every key of a job type (its stream, its health probe) sits on the one node that serves
 * the job type's hash tag, whose memory the job type's alarm watches; the pipeline view's minutes share one tag too.
 */
class RedisClusterTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness()
            .redisCluster(3)
            .simulator(SimulatorConfig.defaults().toBuilder()
                    .latencyMs(5)
                    .receiptMode(ReceiptMode.FINAL)
                    .intermediateReceipts(0)
                    .build());

    @Test
    void sendsAndReceiptsFlowThroughAClusterAndEachJobTypeStaysOnOneNode() {
        List<String> ids = Messages.submit(SERVICE, 100);
        for (String id : ids) {
            Messages.awaitStatus(SERVICE, id, "DELIVERED", Duration.ofSeconds(60));
        }
        assertThat(Messages.providerAccepted(SERVICE)).isEqualTo(ids.size());

        Map<String, Set<Integer>> nodesByTag = new HashMap<>();
        Map<String, Integer> slotNodeByTag = new HashMap<>();
        List<RedisEndpoint> nodes = SERVICE.redisClusterNodes().nodes();
        for (int i = 0; i < nodes.size(); i++) {
            try (LocalRedisCluster.Node node = new LocalRedisCluster.Node(nodes.get(i))) {
                for (String key : node.commands().keys(SERVICE.redisPrefix() + "*")) {
                    String tag = key.contains("{send}")
                            ? "send"
                            : key.contains("{send-high}")
                                    ? "send-high"
                                    : key.contains("{callback}")
                                            ? "callback"
                                            : key.contains("{stats}") ? "stats" : "untagged: " + key;
                    nodesByTag.computeIfAbsent(tag, t -> new TreeSet<>()).add(i);
                }
                for (String tag : List.of("send", "send-high", "callback", "stats")) {
                    int slot = node.commands().clusterKeyslot("{" + tag + "}").intValue();
                    if (node.commands().clusterCountKeysInSlot(slot) > 0) {
                        slotNodeByTag.put(tag, i);
                    }
                }
            }
        }
        assertThat(nodesByTag.keySet())
                .as("every key carries its job type's hash tag")
                .containsExactlyInAnyOrder("send", "send-high", "callback", "stats");
        assertThat(nodesByTag.get("send")).as("nodes holding send keys").containsExactly(slotNodeByTag.get("send"));
        assertThat(nodesByTag.get("send-high"))
                .as("nodes holding the high lane's send keys")
                .containsExactly(slotNodeByTag.get("send-high"));
        assertThat(nodesByTag.get("callback"))
                .as("nodes holding callback keys")
                .containsExactly(slotNodeByTag.get("callback"));
        assertThat(nodesByTag.get("stats"))
                .as("nodes holding the pipeline view's minutes")
                .containsExactly(slotNodeByTag.get("stats"));

        for (String check : List.of(
                "redis-send",
                "redis-send-high",
                "redis-callback",
                "workers-send",
                "workers-send-high",
                "workers-callback")) {
            assertThat(SERVICE.healthy(check))
                    .as(check + ": " + SERVICE.healthMessage(check))
                    .isTrue();
        }
    }
}
