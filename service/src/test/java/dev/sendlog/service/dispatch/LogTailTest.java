package dev.sendlog.service.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sendlog.compactor.PartitionManager;
import dev.sendlog.events.MessageIds;
import dev.sendlog.testkit.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Invariant 12: sequence numbers commit out of order, and the tail never skips one committed late. Here the
 * later position commits first; a reader of {@code position > last} would pass over the earlier one forever.
 */
class LogTailTest {
    @RegisterExtension
    static final TestDatabaseExtension DB = new TestDatabaseExtension();

    private static final short SHARD = 3;
    private static final MessageIds IDS = new MessageIds(InstantSource.system());

    @BeforeAll
    static void partitions() throws SQLException {
        new PartitionManager(DB.dataSource(), Duration.ofSeconds(2)).ensure(LocalDate.now(ZoneOffset.UTC), 1);
    }

    @Test
    void anEventCommittedLateIsReadBeforeTheLaterOneAndNothingIsSkipped() throws Exception {
        LogTail tail = new LogTail(DB.dataSource());
        UUID early = IDS.next();
        UUID late = IDS.next();
        try (Connection a = DB.dataSource().getConnection(); Connection b = DB.dataSource().getConnection()) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            accept(a, early);          // takes the smaller position, and the smaller xid
            accept(b, late);           // the larger position...
            b.commit();                // ...commits first

            List<TailRow> whileOpen = tail.work(List.of(SHARD), List.of(TailCursor.START), 100);
            assertThat(whileOpen).as("nothing past an open writer is visible to the tail").isEmpty();

            a.commit();
        }
        // Any writing transaction in the cluster (another database's, too) holds the tail back until it ends: wait for it.
        List<TailRow> after = await().atMost(Duration.ofSeconds(30)).until(
                () -> tail.work(List.of(SHARD), List.of(TailCursor.START), 100), rows -> rows.size() == 2);
        assertThat(after).extracting(TailRow::messageId).containsExactly(early, late);

        TailCursor cursor = after.getLast().cursor();
        assertThat(tail.work(List.of(SHARD), List.of(cursor), 100)).isEmpty();
        TailCursor afterFirst = after.getFirst().cursor();
        assertThat(tail.work(List.of(SHARD), List.of(afterFirst), 100)).extracting(TailRow::messageId).containsExactly(late);
    }

    @Test
    void onlyWorkEventsOfTheAskedShardsAreRead() throws Exception {
        UUID id = IDS.next();
        try (Connection c = DB.dataSource().getConnection()) {
            accept(c, id);
            try (PreparedStatement ps = c.prepareStatement("""
                    INSERT INTO message_events (message_id, seq, shard, type, version, actor, at, data)
                    VALUES (?, 2, ?, 'PUBLISHED', 1, 'test', now(), '{}')""")) {
                ps.setObject(1, id);
                ps.setShort(2, SHARD);
                ps.executeUpdate();
            }
        }
        LogTail tail = new LogTail(DB.dataSource());
        await().atMost(Duration.ofSeconds(30)).until(() -> tail.work(List.of(SHARD), List.of(TailCursor.START), 100)
                .stream().anyMatch(r -> r.messageId().equals(id)));
        await().atMost(Duration.ofSeconds(30)).until(() -> tail.all(List.of(SHARD), List.of(TailCursor.START), 100)
                .stream().anyMatch(r -> r.messageId().equals(id) && r.type().equals("PUBLISHED")));
        assertThat(tail.work(List.of(SHARD), List.of(TailCursor.START), 100)).extracting(TailRow::type).containsOnly("ACCEPTED");
        assertThat(tail.all(List.of(SHARD), List.of(TailCursor.START), 100)).extracting(TailRow::type).contains("PUBLISHED");
        assertThat(tail.work(List.of((short) (SHARD - 1)), List.of(TailCursor.START), 100))
                .extracting(TailRow::messageId).doesNotContain(id);
    }

    private static void accept(Connection c, UUID id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("""
                INSERT INTO message_events (message_id, seq, shard, type, version, actor, at, data)
                VALUES (?, 1, ?, 'ACCEPTED', 1, 'test', now(), '{"tenant":"t","gateway":"sim"}')""")) {
            ps.setObject(1, id);
            ps.setShort(2, SHARD);
            ps.executeUpdate();
        }
    }
}
