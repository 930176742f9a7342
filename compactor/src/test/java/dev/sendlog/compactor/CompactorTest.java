package dev.sendlog.compactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sendlog.events.EventCodec;
import dev.sendlog.events.EventType;
import dev.sendlog.events.MessageIds;
import dev.sendlog.events.OutcomeUnknown;
import dev.sendlog.events.RowCodec;
import dev.sendlog.events.Shards;
import dev.sendlog.events.StoredEvent;
import dev.sendlog.projections.Histories;
import dev.sendlog.projections.History;
import dev.sendlog.projections.MessageFold;
import dev.sendlog.testkit.LogFixtures;
import dev.sendlog.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Invariant 13: compaction changes nothing visible. Generated histories (non-final ones, ones with receipts still to
 * come) read the same before and after; a run killed between any two steps and run again ends in the same state;
 * an event arriving during compaction is kept; a day not yet read past is left alone.
 */
class CompactorTest {
    private static final LocalDate DAY = LocalDate.parse("2026-09-01");
    private static final EventCodec CODEC = new EventCodec();
    private static final int SHARDS = 4;

    private TestDatabase db;
    private LogFixtures fixtures;

    @BeforeEach
    void database() throws SQLException {
        db = TestDatabase.create();
        new PartitionManager(db.dataSource(), Duration.ofSeconds(2)).ensure(DAY, 1);
        exec("INSERT INTO shard_leases (shard, publish_xid, publish_position) "
                + "SELECT s, 9000000000000000000, 0 FROM generate_series(0, " + (SHARDS - 1) + ") s");
        fixtures = new LogFixtures(db.dataSource());
    }

    @AfterEach
    void drop() {
        db.close();
    }

    private Compactor compactor(Consumer<CompactionStep> afterStep) {
        return new Compactor(db.dataSource(), CODEC, Duration.ofSeconds(5), afterStep);
    }

    @Test
    void generatedHistoriesReadTheSameAfterCompactionAndTheOldPartitionIsGone() throws SQLException {
        Map<UUID, List<StoredEvent>> before = insertHistories(0, 400);
        long rowsBefore = count("SELECT count(*) FROM message_events_p20260901");
        long oid = count("SELECT 'message_events_p20260901'::regclass::oid::bigint");

        assertThat(compactor(s -> {}).compactBefore(DAY.plusDays(1))).containsExactly(DAY);

        assertSameHistories(before);
        assertThat(count("SELECT count(*) FROM message_events_p20260901")).isEqualTo(before.size());
        assertThat(rowsBefore).isGreaterThan(before.size());
        assertThat(count("SELECT 'message_events_p20260901'::regclass::oid::bigint"))
                .as("a new table, not a DELETE")
                .isNotEqualTo(oid);
        assertThat(count("SELECT count(*) FROM compacted_days WHERE day = '2026-09-01'"))
                .isEqualTo(1);
        assertThat(compactor(s -> {}).compactBefore(DAY.plusDays(1))).isEmpty();
        // A message compacted while not final still takes its next event after the snapshot.
        StoredEvent last = before.values().iterator().next().getLast();
        append(last.messageId(), last.seq() + 1, "RECEIPT_PROBE");
        assertThat(count("SELECT count(*) FROM message_events WHERE message_id = '" + last.messageId() + "'"))
                .isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(
            value = CompactionStep.class,
            names = {"COPIED", "DETACHED", "RECONCILED", "ATTACHED", "DROPPED"})
    void aRunKilledAfterAnyStepAndRunAgainEndsTheSame(CompactionStep killedAfter) throws SQLException {
        Map<UUID, List<StoredEvent>> before = insertHistories(1000, 60);
        assertThatThrownBy(() -> compactor(step -> {
                            if (step == killedAfter) {
                                throw new IllegalStateException("killed after " + step);
                            }
                        })
                        .compact(DAY))
                .hasMessageContaining("killed after " + killedAfter);

        compactor(s -> {}).compact(DAY);

        assertSameHistories(before);
        assertThat(count("SELECT count(*) FROM message_events_p20260901")).isEqualTo(before.size());
        assertThat(
                        count(
                                "SELECT count(*) FROM pg_class WHERE relkind = 'r' AND relname LIKE 'message_events_p20260901%'"))
                .isEqualTo(1);
    }

    @Test
    void anEventArrivingBetweenTheCopyAndTheSwapIsKept() throws SQLException {
        Map<UUID, List<StoredEvent>> before = insertHistories(2000, 20);
        StoredEvent last = before.values().iterator().next().getLast();
        compactor(step -> {
                    if (step == CompactionStep.COPIED) {
                        append(last.messageId(), last.seq() + 1, "LATE");
                    }
                })
                .compact(DAY);
        assertThat(count("SELECT count(*) FROM message_events WHERE message_id = '" + last.messageId()
                        + "' AND actor = (SELECT id FROM actors WHERE name = 'LATE')"))
                .isEqualTo(1);
        List<StoredEvent> after = History.expand(read(last.messageId()));
        assertThat(after).hasSize(before.get(last.messageId()).size() + 1);
    }

    @Test
    void aDayWithWorkAPollerHasNotReadPastIsLeftAlone() throws SQLException {
        insertHistories(3000, 40);
        assertThat(count("SELECT count(*) FROM message_events_p20260901 WHERE type = 7"))
                .as("re-driven work in the day")
                .isPositive();
        exec("UPDATE shard_leases SET publish_xid = 0, publish_position = 0");
        assertThat(compactor(s -> {}).compactBefore(DAY.plusDays(1))).isEmpty();
        assertThat(count("SELECT count(*) FROM compacted_days")).isZero();
        assertThat(count("SELECT count(*) FROM message_events_p20260901 WHERE type = 12"))
                .isZero();
    }

    private void assertSameHistories(Map<UUID, List<StoredEvent>> before) throws SQLException {
        for (Map.Entry<UUID, List<StoredEvent>> e : before.entrySet()) {
            List<StoredEvent> after = read(e.getKey());
            assertThat(after).hasSize(1);
            assertThat(after.getFirst().type()).isEqualTo(EventType.COMPACTED);
            assertThat(count("SELECT count(*) FROM message_events WHERE message_id = '" + e.getKey() + "'"))
                    .isEqualTo(1);
            assertThat(History.expand(after)).isEqualTo(e.getValue());
            assertThat(MessageFold.fold(after)).isEqualTo(MessageFold.fold(e.getValue()));
        }
    }

    private Map<UUID, List<StoredEvent>> insertHistories(long seedBase, int count) throws SQLException {
        Map<UUID, List<StoredEvent>> histories = new LinkedHashMap<>();
        Instant noon = DAY.atTime(12, 0).toInstant(ZoneOffset.UTC);
        MessageIds ids = new MessageIds(() -> noon);
        for (int i = 0; i < count; i++) {
            UUID id = ids.next();
            List<StoredEvent> history = Histories.generate(seedBase + i, 30, id);
            fixtures.write(id, Shards.of(id, SHARDS), history);
            // As readers see it: a publication shows once the event after it names it (a trailing one does not).
            histories.put(id, read(id));
        }
        return histories;
    }

    private void append(UUID id, int seq, String actor) {
        try (Connection c = db.dataSource().getConnection()) {
            fixtures.append(
                    c,
                    Shards.of(id, SHARDS),
                    new RowCodec(CODEC).toRow(id, seq, actor, Instant.now(), new OutcomeUnknown("probe"), null));
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The history of a message as the API shows it (before compaction: one event per row, publications included). */
    private List<StoredEvent> read(UUID id) throws SQLException {
        return fixtures.read(id);
    }

    private long count(String sql) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private void exec(String sql) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
                Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }
}
