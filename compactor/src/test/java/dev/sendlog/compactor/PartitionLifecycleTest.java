package dev.sendlog.compactor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sendlog.events.EventCodec;
import dev.sendlog.events.MessageIds;
import dev.sendlog.events.Shards;
import dev.sendlog.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Partition DDL never stalls the writers: while a steady load inserts today's events, future partitions are created
 * (ATTACH of a prepared table) and an old day is compacted (DETACH CONCURRENTLY, ATTACH, DROP), and no insert waits
 * on them for a second. (A lock queue behind ACCESS EXCLUSIVE would hold every insert for the whole DDL.) The writer
 * runs with {@code lock_timeout = 1s}, so an insert that waits a second for a lock fails, and the test with it; an
 * insert slowed by anything else (a busy machine, a checkpoint) does not, which a stopwatch could not tell apart.
 */
class PartitionLifecycleTest {
    @Test
    void creationAndCompactionRunUnderASteadyInsertLoadWithoutBlockingIt() throws Exception {
        LocalDate today = LocalDate.now(ZoneOffset.UTC);
        LocalDate old = today.minusDays(60);
        try (TestDatabase db = TestDatabase.create()) {
            PartitionManager partitions = new PartitionManager(db.dataSource(), Duration.ofSeconds(2));
            partitions.ensure(today, 0);
            partitions.ensure(old, 0);
            try (Connection c = db.dataSource().getConnection();
                    Statement st = c.createStatement()) {
                st.execute("INSERT INTO shard_leases (shard, publish_xid) SELECT s, 9000000000000000000 "
                        + "FROM generate_series(0, 3) s");
                MessageIds oldIds = new MessageIds(() -> old.atTime(10, 0).toInstant(ZoneOffset.UTC));
                for (int i = 0; i < 2000; i++) {
                    UUID id = oldIds.next();
                    st.execute(
                            "INSERT INTO messages (id, tenant, shard, recipient, body, gateway, accepted_at) VALUES ('"
                                    + id + "', 't', " + Shards.of(id, 4) + ", '+4915100000000', 'b', 'g', now())");
                    st.execute("INSERT INTO message_events (message_id, seq, at, type, actor, attempt, time2) VALUES ('"
                            + id + "', 3, now(), 3, (SELECT id FROM actors LIMIT 1), 1, now())");
                }
            }

            AtomicBoolean running = new AtomicBoolean(true);
            AtomicLong slowestNanos = new AtomicLong();
            AtomicLong inserted = new AtomicLong();
            AtomicReference<Exception> loadFailure = new AtomicReference<>();
            Thread load = Thread.ofPlatform().start(() -> {
                MessageIds ids = new MessageIds(Instant::now);
                try (Connection c = db.dataSource().getConnection();
                        PreparedStatement ps = c.prepareStatement(
                                "INSERT INTO messages (id, tenant, shard, recipient, body, gateway, accepted_at) "
                                        + "VALUES (?, 't', ?, '+4915100000000', 'b', 'g', now())")) {
                    try (Statement st = c.createStatement()) {
                        st.execute("SET lock_timeout = '1s'");
                    }
                    while (running.get()) {
                        UUID id = ids.next();
                        ps.setObject(1, id);
                        ps.setShort(2, Shards.of(id, 4));
                        long t0 = System.nanoTime();
                        ps.executeUpdate();
                        slowestNanos.accumulateAndGet(System.nanoTime() - t0, Math::max);
                        inserted.incrementAndGet();
                    }
                } catch (Exception e) {
                    loadFailure.set(e);
                }
            });
            long during;
            try {
                long before = inserted.get();
                assertThat(partitions.ensure(today.plusDays(1), 20)).hasSize(42);
                new Compactor(db.dataSource(), new EventCodec(), Duration.ofSeconds(5), s -> {}).compact(old);
                during = inserted.get() - before;
            } finally {
                running.set(false);
                load.join();
            }
            System.out.printf("inserts during partition DDL: %d, slowest %.1f ms%n", during, slowestNanos.get() / 1e6);
            assertThat(loadFailure.get())
                    .as("an insert failed, 55P03 when it waited a second for a lock")
                    .isNull();
            assertThat(during).as("the load kept inserting during the DDL").isPositive();
        }
    }
}
