package dev.sendlog.service.scale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.PollerProcess;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import dev.sendlog.service.support.SteadyLoad;
import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Three poller processes share sixteen shards evenly (6, 5, 5). One is killed with {@code kill -9} under load: the
 * other two take its shards once its leases run out. It comes back: the shards rebalance to 6, 5, 5. Another is
 * frozen with SIGSTOP past its lease and thawed, so it wakes believing it still owns shards that have moved: the
 * epoch fences it out. Throughout, every accepted message reaches the provider and is charged once, and the log
 * shows each shard's publications in epoch order with one poller per epoch.
 */
class ShardFailoverTest {
    private static final int SHARDS = 16;
    /** Every shard the pollers share: the normal ones and the high priority lane's. */
    private static final int TOTAL_SHARDS = SHARDS + new dev.sendlog.service.config.PipelineSettings().highShards;

    private static final Duration LEASE = Duration.ofSeconds(3);
    /** A lease runs out {@code LEASE} after its last renewal; a survivor notices at its next refresh (LEASE / 3). */
    private static final Duration TAKEOVER_BOUND = LEASE.plus(LEASE.dividedBy(3));
    /** A JVM start on a busy two-core machine. */
    private static final Duration STARTUP = Duration.ofMinutes(3);

    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
            "components",
            "API,SEND_WORKER",
            "pipeline.shards",
            Integer.toString(SHARDS),
            "pipeline.leaseTtl",
            LEASE.toSeconds() + "s");

    private static final Map<String, String> POLLER =
            Map.of("pipeline.shards", Integer.toString(SHARDS), "pipeline.leaseTtl", LEASE.toSeconds() + "s");

    @Test
    void killedAndFrozenPollersLoseTheirShardsToTheOthersAndNothingIsLost() throws Exception {
        List<PollerProcess> started = new ArrayList<>();
        List<PollerProcess> pollers = new ArrayList<>();
        SteadyLoad load = SteadyLoad.start(SERVICE);
        try {
            for (int i = 1; i <= 3; i++) {
                pollers.add(start(started, "poller-" + i));
            }
            for (PollerProcess p : pollers) {
                await().atMost(STARTUP).until(p::ready);
            }
            awaitEvenSplit(pollers);

            // kill -9 one: its shards are free only when its leases run out, then the two others take them.
            PollerProcess killed = pollers.get(1);
            List<Short> orphaned = owned().getOrDefault(killed.owner(), List.of());
            assertThat(orphaned).isNotEmpty();
            long killedAt = System.nanoTime();
            killed.kill();
            pollers.remove(killed);
            await().atMost(TAKEOVER_BOUND.plusSeconds(10))
                    .pollInterval(Duration.ofMillis(100))
                    .untilAsserted(() -> assertThat(liveOwnersOf(orphaned))
                            .as("shards of the killed poller")
                            .allMatch(o -> o.equals(pollers.get(0).owner())
                                    || o.equals(pollers.get(1).owner())));
            System.out.printf(
                    "shard failover: %d shards of a kill -9'd poller taken over after %d ms (lease %d ms)%n",
                    orphaned.size(), (System.nanoTime() - killedAt) / 1_000_000, LEASE.toMillis());
            awaitEvenSplit(pollers);

            // Started again: the shards rebalance without anyone waiting for a lease to run out.
            PollerProcess restarted = start(started, "poller-2-again");
            pollers.add(restarted);
            await().atMost(STARTUP).until(restarted::ready);
            awaitEvenSplit(pollers);

            // SIGSTOP past the lease: the others take its shards; thawed, it must not publish them under its old epoch.
            PollerProcess frozen = pollers.get(0);
            List<Short> frozenShards = owned().getOrDefault(frozen.owner(), List.of());
            frozen.pause();
            try {
                await().atMost(TAKEOVER_BOUND.plusSeconds(10))
                        .pollInterval(Duration.ofMillis(100))
                        .untilAsserted(
                                () -> assertThat(liveOwnersOf(frozenShards)).doesNotContain(frozen.owner()));
            } finally {
                frozen.resume();
            }
            awaitEvenSplit(pollers);
            System.out.printf(
                    "shard failover: the thawed poller's fenced writes refused %d times%n",
                    frozen.counter("poller.leases.lost"));

            List<String> accepted = load.stop();
            assertThat(accepted).hasSizeGreaterThan(100);

            // Every accepted message reached the provider and was charged once, whatever poller published it.
            Messages.awaitCount(
                    SERVICE,
                    "SELECT count(DISTINCT message_id) FROM message_events WHERE type = 4",
                    accepted.size(),
                    Duration.ofSeconds(120));
            assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM ledger"))
                    .isEqualTo(accepted.size());
            assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM messages"))
                    .isEqualTo(accepted.size());
            assertThat(SERVICE.simulator().keys()).hasSize(accepted.size());

            // The fencing, seen in the log: per shard, PUBLISHED events in commit order never go back to an older
            // epoch, and each (shard, epoch) was published by exactly one poller.
            // (Publications in the order they were made: a poller takes the time before its fenced transaction, and the
            // next owner can take the shard only after that transaction ended.)
            assertThat(Sql.count(SERVICE.dataSource(), """
                    SELECT count(*) FROM (
                        SELECT u.epoch, max(u.epoch) OVER (PARTITION BY m.shard ORDER BY p.published_at, p.id
                                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS newest_before
                        FROM publications p CROSS JOIN unnest(p.message_ids, p.epochs) AS u(message_id, epoch)
                        JOIN messages m ON m.id = u.message_id) t
                    WHERE epoch < newest_before"""))
                    .as("published under an older epoch after a newer one")
                    .isZero();
            assertThat(Sql.count(SERVICE.dataSource(), """
                    SELECT count(*) FROM (SELECT m.shard, u.epoch
                                          FROM publications p CROSS JOIN unnest(p.message_ids, p.epochs) AS u(message_id, epoch)
                                          JOIN messages m ON m.id = u.message_id
                                          GROUP BY 1, 2 HAVING count(DISTINCT p.actor) > 1) t"""))
                    .as("epochs with two publishers")
                    .isZero();
            assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(DISTINCT actor) FROM publications"))
                    .as("all four poller processes published")
                    .isEqualTo(4);
        } finally {
            load.close();
            for (PollerProcess p : started) {
                p.close();
            }
        }
    }

    private static PollerProcess start(List<PollerProcess> started, String name) throws IOException {
        PollerProcess p = PollerProcess.start(SERVICE, name, POLLER);
        started.add(p);
        return p;
    }

    /** Waits until the live pollers hold 6, 5 and 5 (or 8 and 8) of the shards, every lease valid. */
    private static void awaitEvenSplit(List<PollerProcess> pollers) {
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> {
                    Map<String, List<Short>> owned = owned();
                    List<Integer> sizes = pollers.stream()
                            .map(p -> owned.getOrDefault(p.owner(), List.of()).size())
                            .sorted()
                            .toList();
                    assertThat(sizes.stream().mapToInt(Integer::intValue).sum())
                            .as("shards held by live pollers")
                            .isEqualTo(TOTAL_SHARDS);
                    assertThat(sizes.get(sizes.size() - 1) - sizes.get(0))
                            .as("shares %s", sizes)
                            .isLessThanOrEqualTo(1);
                });
    }

    /** Owner of each shard whose lease is valid now. */
    private static Map<String, List<Short>> owned() throws SQLException {
        Map<String, List<Short>> owned = new TreeMap<>();
        try (Connection c = SERVICE.dataSource().getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(
                        "SELECT owner, shard FROM shard_leases WHERE owner IS NOT NULL AND expires_at > now()")) {
            while (rs.next()) {
                owned.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(rs.getShort(2));
            }
        }
        return owned;
    }

    private static List<String> liveOwnersOf(List<Short> shards) throws SQLException {
        List<String> owners = new ArrayList<>();
        owned().forEach((owner, list) -> list.stream().filter(shards::contains).forEach(s -> owners.add(owner)));
        assertThat(owners).as("every one of %s has a live owner", shards).hasSize(shards.size());
        return owners;
    }
}
