package dev.sendlog.service.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
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
        try (Connection a = DB.dataSource().getConnection();
                Connection b = DB.dataSource().getConnection()) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            accept(a, early); // takes the smaller position, and the smaller xid
            accept(b, late); // the larger position...
            b.commit(); // ...commits first

            List<TailRow> whileOpen = tail.work(List.of(SHARD), List.of(TailCursor.START), 100);
            assertThat(whileOpen)
                    .as("nothing past an open writer is visible to the tail")
                    .isEmpty();

            a.commit();
        }
        // Any writing transaction in the cluster (another database's, too) holds the tail back until it ends: wait for
        // it.
        List<TailRow> after = await().atMost(Duration.ofSeconds(30))
                .until(() -> tail.work(List.of(SHARD), List.of(TailCursor.START), 100), rows -> rows.size() == 2);
        assertThat(after).extracting(TailRow::messageId).containsExactly(early, late);

        TailCursor cursor = after.getLast().cursor();
        assertThat(tail.work(List.of(SHARD), List.of(cursor), 100)).isEmpty();
        TailCursor afterFirst = after.getFirst().cursor();
        assertThat(tail.work(List.of(SHARD), List.of(afterFirst), 100))
                .extracting(TailRow::messageId)
                .containsExactly(late);
    }

    @Test
    void newMessagesAndRedrivesAreReadInOneOrderAndNothingElseIs() throws Exception {
        UUID first = IDS.next();
        UUID second = IDS.next();
        try (Connection c = DB.dataSource().getConnection()) {
            accept(c, first);
            event(c, first, 3, 3, null); // CLAIMED: not work
            event(c, first, 5, 7, (short) 2); // REDRIVEN of attempt 2: work, after the first message's row
            accept(c, second); // a new message after that REDRIVEN
        }
        LogTail tail = new LogTail(DB.dataSource());
        // Past whatever earlier tests left in the shard: start from just before this test's first row.
        TailCursor before = await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> tail.work(List.of(SHARD), List.of(TailCursor.START), 1000).stream()
                                .filter(r -> r.messageId().equals(first))
                                .findFirst(),
                        java.util.Optional::isPresent)
                .get()
                .cursor();
        TailCursor start = new TailCursor(before.xid(), before.position() - 1);
        List<TailRow> rows = await().atMost(Duration.ofSeconds(30))
                .until(() -> tail.work(List.of(SHARD), List.of(start), 100), r -> r.size() == 3);
        assertThat(rows)
                .extracting(TailRow::messageId, TailRow::seq, TailRow::attempt)
                .containsExactly(tuple(first, 1, 1), tuple(first, 5, 2), tuple(second, 1, 1));
        assertThat(tail.work(List.of(SHARD), List.of(rows.get(0).cursor()), 100))
                .extracting(TailRow::seq)
                .containsExactly(5, 1);
        assertThat(tail.work(List.of(SHARD), List.of(start), 2))
                .as("the page holds the first two of both kinds")
                .extracting(TailRow::seq)
                .containsExactly(1, 5);
        assertThat(tail.work(List.of((short) (SHARD - 1)), List.of(TailCursor.START), 100))
                .extracting(TailRow::messageId)
                .doesNotContain(first, second);
    }

    /**
     * Scheduled send (issue 26): a scheduled message's row is read like any other, so the cursor moves past it, and
     * marked, so nothing is published for it until its REDRIVEN DUE; a sendAt not after the acceptance (meaning now) is
     * not scheduled, and neither is a message without one.
     */
    @Test
    void aScheduledMessagesRowIsReadMarkedSoTheCursorMovesPastIt() throws Exception {
        short shard = 5;
        UUID later = IDS.next();
        UUID past = IDS.next();
        UUID none = IDS.next();
        try (Connection c = DB.dataSource().getConnection()) {
            for (Object[] m : new Object[][] {
                {later, "now() + interval '1 hour'"}, {past, "now() - interval '1 hour'"}, {none, "NULL"}
            }) {
                try (PreparedStatement ps =
                        c.prepareStatement("INSERT INTO messages (id, tenant, shard, recipient, body,"
                                + " gateway, accepted_at, send_at) VALUES (?, 't', ?, '+4915100000001', 'hello', 'sim', now(), "
                                + m[1] + ")")) {
                    ps.setObject(1, m[0]);
                    ps.setShort(2, shard);
                    ps.executeUpdate();
                }
            }
        }
        LogTail tail = new LogTail(DB.dataSource());
        List<TailRow> rows = await().atMost(Duration.ofSeconds(30))
                .until(() -> tail.work(List.of(shard), List.of(TailCursor.START), 100), r -> r.size() == 3);
        assertThat(rows)
                .extracting(TailRow::messageId, TailRow::scheduled)
                .containsExactly(tuple(later, true), tuple(past, false), tuple(none, false));
        assertThat(tail.work(List.of(shard), List.of(rows.getFirst().cursor()), 100))
                .extracting(TailRow::messageId)
                .as("past the scheduled row, the rest")
                .containsExactly(past, none);
    }

    /**
     * The tail's read is planned once per connection (a generic plan), with the statistics of that moment: every day
     * partition, tomorrow's analyzed while still empty included, must be read through its index in (xid, position)
     * order, never scanned whole, or a partition that fills after its plan was made would be read whole at every poll
     * until its next ANALYZE.
     */
    @Test
    void theCachedPlanReadsEveryPartitionThroughItsIndexWhateverItsStatistics() throws Exception {
        String plan;
        int partitions;
        try (Connection c = DB.dataSource().getConnection();
                java.sql.Statement st = c.createStatement()) {
            st.execute("ANALYZE messages");
            st.execute("ANALYZE message_events");
            c.setAutoCommit(false);
            st.execute(LogTail.PLAN_SETTINGS);
            String sql = LogTail.WORK_SQL;
            for (int n = 1; sql.contains("?"); n++) {
                sql = sql.replaceFirst("\\?", "\\$" + n);
            }
            st.execute("PREPARE tail_read(int2[], int8[], int8[], int, int, int) AS " + sql);
            StringBuilder text = new StringBuilder();
            try (java.sql.ResultSet rs =
                    st.executeQuery("EXPLAIN EXECUTE tail_read('{1,2}', '{0,0}', '{0,0}', 500, 500, 500)")) {
                while (rs.next()) {
                    text.append(rs.getString(1)).append('\n');
                }
            }
            plan = text.toString();
            try (java.sql.ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_inherits WHERE inhparent IN"
                    + " ('messages'::regclass, 'message_events'::regclass)")) {
                rs.next();
                partitions = rs.getInt(1);
            }
            c.rollback();
        }
        assertThat(partitions)
                .as("today's and tomorrow's partitions of both tables")
                .isGreaterThanOrEqualTo(4);
        assertThat(plan).doesNotContain("Seq Scan").doesNotContain("Bitmap");
        assertThat(plan.lines().filter(l -> l.contains("Index Scan using")).count())
                .as("an index scan per partition of both tables:%n%s", plan)
                .isEqualTo(partitions);
    }

    private static void event(Connection c, UUID id, int seq, int type, Short attempt) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("""
                INSERT INTO message_events (message_id, seq, at, type, actor, attempt, shard, xid, position)
                VALUES (?, ?, now(), ?, (SELECT id FROM actors LIMIT 1), ?, ?,
                        CASE WHEN ? = 7 THEN pg_current_xact_id()::text::bigint END,
                        CASE WHEN ? = 7 THEN nextval('message_events_position_seq') END)""")) {
            ps.setObject(1, id);
            ps.setInt(2, seq);
            ps.setShort(3, (short) type);
            if (attempt == null) {
                ps.setNull(4, java.sql.Types.SMALLINT);
            } else {
                ps.setShort(4, attempt);
            }
            ps.setShort(5, SHARD);
            ps.setInt(6, type);
            ps.setInt(7, type);
            ps.executeUpdate();
        }
    }

    /** A message row: the acceptance, and the work of attempt 1. */
    private static void accept(Connection c, UUID id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("""
                INSERT INTO messages (id, tenant, shard, recipient, body, gateway, accepted_at)
                VALUES (?, 't', ?, '+4915100000001', 'hello', 'sim', now())""")) {
            ps.setObject(1, id);
            ps.setShort(2, SHARD);
            ps.executeUpdate();
        }
    }
}
