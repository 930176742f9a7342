package dev.sendlog.service.scale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.PollerProcess;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import dev.sendlog.service.support.SteadyLoad;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The change-data-capture feed across poller processes: two run, one reads the slot. The reader is killed with
 * {@code kill -9} mid-stream: the other takes the slot and resumes from the confirmed position. A third starts and
 * the reader is frozen with SIGSTOP: the server cuts the frozen reader off after {@code wal_sender_timeout} (the
 * lease time) and another takes the slot. Throughout, every accepted message reaches the provider and is charged
 * once, and each epoch of the slot was published under by one process only.
 */
class CdcFailoverTest {
    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration STARTUP = Duration.ofMinutes(3);

    @RegisterExtension
    static final ServiceHarness SERVICE =
            new ServiceHarness("components", "API,SEND_WORKER", "pipeline.leaseTtl", LEASE.toSeconds() + "s").cdcFeed();

    private static final Map<String, String> POLLER = Map.of("pipeline.leaseTtl", LEASE.toSeconds() + "s");

    @Test
    void aKilledOrFrozenSlotReaderIsReplacedAndNothingIsLost() throws Exception {
        List<PollerProcess> started = new ArrayList<>();
        SteadyLoad load = SteadyLoad.start(SERVICE);
        try {
            List<PollerProcess> pollers = new ArrayList<>();
            for (int i = 1; i <= 2; i++) {
                PollerProcess p = PollerProcess.start(SERVICE, "cdc-poller-" + i, POLLER);
                started.add(p);
                pollers.add(p);
            }
            for (PollerProcess p : pollers) {
                await().atMost(STARTUP).until(p::ready);
            }
            PollerProcess reader = awaitReaderAmong(pollers);
            await().atMost(Duration.ofSeconds(60)).until(() -> published() > 200);

            // kill -9 mid-stream: its connection closes, the server frees the slot, the other one takes it.
            long killedAt = System.nanoTime();
            reader.kill();
            pollers.remove(reader);
            PollerProcess next = awaitReaderAmong(pollers);
            System.out.printf(
                    "cdc failover: the slot of a kill -9'd reader taken after %d ms (lease %d ms)%n",
                    (System.nanoTime() - killedAt) / 1_000_000, LEASE.toMillis());
            long publishedAfterKill = published();
            await().atMost(Duration.ofSeconds(60)).until(() -> published() > publishedAfterKill + 200);

            // Frozen: the server ends its replication connection after wal_sender_timeout; a newcomer takes the slot.
            PollerProcess third = PollerProcess.start(SERVICE, "cdc-poller-3", POLLER);
            started.add(third);
            pollers.add(third);
            await().atMost(STARTUP).until(third::ready);
            long frozenAt = System.nanoTime();
            next.pause();
            try {
                PollerProcess after = awaitReaderAmong(List.of(third));
                assertThat(after).isSameAs(third);
                System.out.printf(
                        "cdc failover: the slot of a frozen reader taken after %d ms%n",
                        (System.nanoTime() - frozenAt) / 1_000_000);
            } finally {
                next.resume();
            }
            long publishedAfterFreeze = published();
            await().atMost(Duration.ofSeconds(60)).until(() -> published() > publishedAfterFreeze + 200);

            List<String> accepted = load.stop();
            System.out.printf(
                    "cdc failover: rows read from the slot before their commit was visible, asked again: %d times%n",
                    next.counter("cdc.rows.not.visible.yet") + third.counter("cdc.rows.not.visible.yet"));

            try {
                Messages.awaitCount(
                        SERVICE,
                        "SELECT count(DISTINCT message_id) FROM message_events WHERE type = 4",
                        accepted.size(),
                        Duration.ofSeconds(120));
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                throw new AssertionError("messages not sent, with their events:\n" + unsent(), e);
            }
            assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM ledger"))
                    .isEqualTo(accepted.size());
            assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM messages"))
                    .isEqualTo(accepted.size());
            assertThat(SERVICE.simulator().keys()).hasSize(accepted.size());
            assertThat(Sql.count(SERVICE.dataSource(), """
                    SELECT count(*) FROM (SELECT u.epoch FROM publications p CROSS JOIN unnest(p.epochs) AS u(epoch)
                                          GROUP BY 1 HAVING count(DISTINCT p.actor) > 1) t"""))
                    .as("epochs with two publishers")
                    .isZero();
            assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(DISTINCT actor) FROM publications"))
                    .as("three readers published in turn")
                    .isEqualTo(3);
            assertThat(Sql.count(SERVICE.dataSource(), "SELECT epoch FROM feed_slots"))
                    .isGreaterThanOrEqualTo(3);
        } finally {
            load.close();
            for (PollerProcess p : started) {
                p.close();
            }
        }
    }

    /** What the log says of the messages that never reached the provider (for the failure message). */
    private static String unsent() throws SQLException {
        StringBuilder out = new StringBuilder();
        try (Connection c = SERVICE.dataSource().getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("""
                     SELECT m.id, m.xid || '/' || m.position || ' ' || coalesce(string_agg(e.type || '#' || e.seq || ' by '
                                   || e.actor || ' at ' || e.at, E'\n    ' ORDER BY e.seq), '(no event row)')
                     FROM messages m LEFT JOIN message_events e ON e.message_id = m.id
                     WHERE NOT EXISTS (SELECT 1 FROM message_events p WHERE p.message_id = m.id AND p.type = 4)
                     GROUP BY m.id, m.xid, m.position LIMIT 25""")) {
            while (rs.next()) {
                out.append(rs.getString(1))
                        .append(":\n    ")
                        .append(rs.getString(2))
                        .append('\n');
            }
        }
        try (Connection c = SERVICE.dataSource().getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(
                        "SELECT slot_name, confirmed_flush_lsn, restart_lsn, active FROM pg_replication_slots")) {
            while (rs.next()) {
                out.append("slot ")
                        .append(rs.getString(1))
                        .append(" confirmed ")
                        .append(rs.getString(2))
                        .append(" restart ")
                        .append(rs.getString(3))
                        .append(" active ")
                        .append(rs.getBoolean(4))
                        .append('\n');
            }
        }
        return out.toString();
    }

    private static long published() {
        return Sql.count(SERVICE.dataSource(), "SELECT coalesce(sum(cardinality(message_ids)), 0) FROM publications");
    }

    /** Waits until one of {@code candidates} reads the slot (the slot active, its row naming that process). */
    private static PollerProcess awaitReaderAmong(List<PollerProcess> candidates) {
        AtomicReference<PollerProcess> found = new AtomicReference<>();
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    String holder = holder();
                    for (PollerProcess p : candidates) {
                        if (p.owner().equals(holder)) {
                            found.set(p);
                            return true;
                        }
                    }
                    return false;
                });
        return found.get();
    }

    private static String holder() throws SQLException {
        try (Connection c = SERVICE.dataSource().getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT f.holder FROM feed_slots f JOIN pg_replication_slots s "
                        + "ON s.slot_name = f.slot_name WHERE s.active")) {
            return rs.next() ? rs.getString(1) : null;
        }
    }
}
