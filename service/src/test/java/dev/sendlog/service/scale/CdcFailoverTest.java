package dev.sendlog.service.scale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.PollerProcess;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
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
    static final ServiceHarness SERVICE = new ServiceHarness(
            "components", "API,SEND_WORKER",
            "pipeline.leaseTtl", LEASE.toSeconds() + "s").cdcFeed();

    private static final Map<String, String> POLLER = Map.of("pipeline.leaseTtl", LEASE.toSeconds() + "s");

    @Test
    void aKilledOrFrozenSlotReaderIsReplacedAndNothingIsLost() throws Exception {
        List<PollerProcess> started = new ArrayList<>();
        List<String> accepted = Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean loading = new AtomicBoolean(true);
        AtomicReference<Throwable> loadFailure = new AtomicReference<>();
        Thread load = Thread.ofVirtual().start(() -> {
            try {
                while (loading.get()) {
                    accepted.addAll(Messages.submit(SERVICE, 20));
                    Thread.sleep(100);   // pacing: a steady ~200 msg/s while readers die and come back
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Throwable t) {
                loadFailure.set(t);
            }
        });
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
            System.out.printf("cdc failover: the slot of a kill -9'd reader taken after %d ms (lease %d ms)%n",
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
                System.out.printf("cdc failover: the slot of a frozen reader taken after %d ms%n",
                        (System.nanoTime() - frozenAt) / 1_000_000);
            } finally {
                next.resume();
            }
            long publishedAfterFreeze = published();
            await().atMost(Duration.ofSeconds(60)).until(() -> published() > publishedAfterFreeze + 200);

            loading.set(false);
            load.join();
            assertThat(loadFailure.get()).as("every submit got its 202").isNull();

            Messages.awaitCount(SERVICE, "SELECT count(DISTINCT message_id) FROM message_events WHERE type = 'PROVIDER_ACCEPTED'",
                    accepted.size(), Duration.ofSeconds(120));
            assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM ledger")).isEqualTo(accepted.size());
            assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM messages")).isEqualTo(accepted.size());
            assertThat(SERVICE.simulator().keys()).hasSize(accepted.size());
            assertThat(Sql.count(SERVICE.dataSource(), """
                    SELECT count(*) FROM (SELECT data->>'epoch' FROM message_events WHERE type = 'PUBLISHED'
                                          GROUP BY 1 HAVING count(DISTINCT actor) > 1) t""")).as("epochs with two publishers").isZero();
            assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(DISTINCT actor) FROM message_events WHERE type = 'PUBLISHED'"))
                    .as("three readers published in turn").isEqualTo(3);
            assertThat(Sql.count(SERVICE.dataSource(), "SELECT epoch FROM feed_slots")).isGreaterThanOrEqualTo(3);
        } finally {
            loading.set(false);
            load.join();
            for (PollerProcess p : started) {
                p.close();
            }
        }
    }

    private static long published() {
        return Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM message_events WHERE type = 'PUBLISHED'");
    }

    /** Waits until one of {@code candidates} reads the slot (the slot active, its row naming that process). */
    private static PollerProcess awaitReaderAmong(List<PollerProcess> candidates) {
        AtomicReference<PollerProcess> found = new AtomicReference<>();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
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
        try (Connection c = SERVICE.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT f.holder FROM feed_slots f JOIN pg_replication_slots s "
                     + "ON s.slot_name = f.slot_name WHERE s.active")) {
            return rs.next() ? rs.getString(1) : null;
        }
    }
}
