package dev.sendlog.compactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sendlog.events.MessageIds;
import dev.sendlog.testkit.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class PartitionManagerTest {
    @RegisterExtension
    static final TestDatabaseExtension DB = new TestDatabaseExtension();

    private static final LocalDate DAY = LocalDate.parse("2027-03-10");

    @Test
    void createsEveryDayAheadForBothTablesAndIsIdempotent() throws SQLException {
        PartitionManager partitions = new PartitionManager(DB.database().dataSource(), Duration.ofSeconds(2));
        assertThat(partitions.ensure(DAY, 3)).hasSize(8);
        assertThat(partitions.ensure(DAY, 3)).isEmpty();
        assertThat(partitions.days(PartitionedTable.MESSAGE_EVENTS))
                .contains(DAY, DAY.plusDays(1), DAY.plusDays(2), DAY.plusDays(3));
        assertThat(partitions.daysCovered(DAY)).isEqualTo(4);
        assertThat(partitions.daysCovered(DAY.plusDays(2))).isEqualTo(2);
        assertThat(partitions.daysCovered(DAY.minusDays(1))).isZero();
    }

    @Test
    void aRowLandsInThePartitionOfItsDayAndARowOfADayWithoutPartitionIsRefused() throws SQLException {
        LocalDate day = LocalDate.parse("2027-06-01");
        new PartitionManager(DB.database().dataSource(), Duration.ofSeconds(2)).ensure(day, 0);
        UUID inDay = MessageIds.lowerBound(day.atTime(12, 0).toInstant(ZoneOffset.UTC));
        UUID nextDay = MessageIds.lowerBound(day.plusDays(1).atTime(0, 0).toInstant(ZoneOffset.UTC));
        try (Connection c = DB.database().dataSource().getConnection()) {
            insertEvent(c, inDay);
            try (var rs = c.createStatement()
                    .executeQuery(
                            "SELECT tableoid::regclass::text, xid > 0 FROM messages WHERE id = '" + inDay + "'")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("messages_p20270601");
                assertThat(rs.getBoolean(2))
                        .as("the message row carries its tail position")
                        .isTrue();
            }
            try (var rs = c.createStatement()
                    .executeQuery(
                            "SELECT tableoid::regclass::text FROM message_events WHERE message_id = '" + inDay + "'")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("message_events_p20270601");
            }
            assertThatThrownBy(() -> insertEvent(c, nextDay)).hasMessageContaining("no partition");
        }
    }

    /**
     * Every instance ensures the partitions when it starts, so a fleet started together queues on the DDL lock while
     * the first creates them. Waiting for that turn blocks no insert, so it is not cut short by the DDL's own lock
     * timeout: an instance that gave up there would fail its start on a machine slow enough for the first one's DDL
     * to take longer than that timeout.
     */
    @Test
    void anInstanceWaitsItsTurnForThePartitionDdlLongerThanTheDdlLockTimeout() throws Exception {
        LocalDate day = LocalDate.parse("2027-09-01");
        PartitionManager partitions = new PartitionManager(DB.database().dataSource(), Duration.ofMillis(200));
        CompletableFuture<List<DayPartition>> waiting;
        try (Connection other = DB.database().connect()) {
            other.createStatement().execute("SELECT pg_advisory_lock(" + PartitionManager.DDL_LOCK_KEY + ")");
            waiting = CompletableFuture.supplyAsync(() -> {
                try {
                    return partitions.ensure(day, 1);
                } catch (SQLException e) {
                    throw new IllegalStateException(e.getSQLState() + " " + e.getMessage(), e);
                }
            });
            // Hold the lock until the other instance has waited five times its DDL lock timeout (or given up).
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> waiting.isDone() || waitedForTheDdlLockOverOneSecond(other));
            other.createStatement().execute("SELECT pg_advisory_unlock(" + PartitionManager.DDL_LOCK_KEY + ")");
        }
        assertThat(waiting.get(30, TimeUnit.SECONDS))
                .as("partitions it created after its turn came")
                .hasSize(4);
        assertThat(partitions.daysCovered(day)).isEqualTo(2);
    }

    private static boolean waitedForTheDdlLockOverOneSecond(Connection c) throws SQLException {
        try (var rs = c.createStatement().executeQuery("""
                SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                WHERE l.locktype = 'advisory' AND NOT l.granted AND a.datname = current_database()
                  AND clock_timestamp() - a.query_start > interval '1 second'""")) {
            rs.next();
            return rs.getLong(1) == 1;
        }
    }

    /** A message's row and a claim of it, each in the partition of the message's day. */
    private static void insertEvent(Connection c, UUID id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("""
                INSERT INTO messages (id, tenant, shard, recipient, body, gateway, accepted_at)
                VALUES (?, 't', 0, '+4915100000000', 'b', 'sim', now())""")) {
            ps.setObject(1, id);
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement("""
                INSERT INTO message_events (message_id, seq, at, type, actor, attempt, time2)
                VALUES (?, 3, now(), 3, (SELECT id FROM actors LIMIT 1), 1, now())""")) {
            ps.setObject(1, id);
            ps.executeUpdate();
        }
    }
}
