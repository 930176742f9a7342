package dev.sendlog.service.log;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import dev.sendlog.compactor.PartitionManager;
import dev.sendlog.events.Claimed;
import dev.sendlog.events.MessageIds;
import dev.sendlog.events.Shards;
import dev.sendlog.projections.MessageState;
import dev.sendlog.service.support.Messages;
import dev.sendlog.testkit.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The read of messages by id (the send worker's claim read, the timers', search's) is planned once per connection
 * however many ids each call gives, and reads each message in its own day's partition: with a plan made per call, the
 * planning cost three times the read. Ids given twice are read once.
 */
class MessageReadPlanTest {
    @RegisterExtension
    static final TestDatabaseExtension DB = new TestDatabaseExtension();

    @Test
    void oneCachedPlanServesEveryCountOfIdsAndPrunesToTheirDays() throws Exception {
        new PartitionManager(DB.dataSource(), Duration.ofSeconds(5)).ensure(LocalDate.now(ZoneOffset.UTC), 3);
        EventStore store = EventStore.of(DB.dataSource());
        MessageIds messageIds = new MessageIds(InstantSource.system());
        List<UUID> ids = new ArrayList<>();
        try (Connection c = DB.dataSource().getConnection()) {
            DSLContext dsl = DSL.using(c, SQLDialect.POSTGRES);
            for (int i = 0; i < 8; i++) {
                UUID id = messageIds.next();
                ids.add(id);
                Messages.insertRow(dsl, id, "acme", 16);
            }
            MessageReader reader = new MessageReader(dsl, store);
            for (int round = 0; round < 6; round++) {
                for (int count : new int[] {1, 2, 8}) {
                    assertThat(reader.findMany(ids.subList(0, count))).hasSize(count);
                }
            }
            EventAppender appender = new EventAppender(dsl, store, 1, new MetricRegistry(), "append");
            appender.start();
            try {
                MessageState state = reader.find(ids.get(0)).orElseThrow().state();
                assertThat(appender.append(
                                List.of(new NewEvent(
                                        ids.get(0),
                                        state.nextSeq(),
                                        Shards.of(ids.get(0), 16),
                                        "worker-1",
                                        Instant.now(),
                                        new Claimed(1, "worker-1", Instant.now().plusSeconds(60)))),
                                null))
                        .hasSize(1);
            } finally {
                appender.stop();
            }
            Map<UUID, MessageDetails> twice = reader.findMany(List.of(ids.get(0), ids.get(0), ids.get(1)));
            assertThat(twice).hasSize(2);
            assertThat(twice.get(ids.get(0)).events())
                    .as("its history read once: the acceptance and the claim")
                    .hasSize(2);

            long generic;
            long custom;
            try (Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("SELECT generic_plans, custom_plans FROM pg_prepared_statements"
                            + " WHERE statement LIKE '%AS k(id)%CROSS JOIN LATERAL%'")) {
                assertThat(rs.next())
                        .as("the read is a prepared statement of this connection")
                        .isTrue();
                generic = rs.getLong(1);
                custom = rs.getLong(2);
            }
            assertThat(custom)
                    .as("PostgreSQL's first five plans are made per call")
                    .isLessThanOrEqualTo(5);
            assertThat(generic).as("then the cached plan serves every count").isGreaterThanOrEqualTo(8);

            String plan = generic(c, ids.get(0));
            assertThat(plan).doesNotContain("Seq Scan on messages").doesNotContain("Seq Scan on message_events");
            assertThat(plan.lines()
                            .filter(l -> l.contains("Index Scan") && !l.contains("never executed"))
                            .filter(l -> l.contains(" on messages_") || l.contains(" on message_events_")))
                    .as("the message and its events, each read in its day's partition only:%n%s", plan)
                    .hasSize(2);
        }
    }

    /** The read's cached plan for one id, as it runs (the partitions it pruned show as never executed). */
    private static String generic(Connection c, UUID id) throws Exception {
        StringBuilder text = new StringBuilder();
        try (Statement st = c.createStatement()) {
            st.execute("PREPARE find_read(int8[], uuid[]) AS "
                    + MessageReader.FIND_SQL.replaceFirst("\\?", "\\$1").replaceFirst("\\?", "\\$2"));
            st.execute("SET plan_cache_mode = force_generic_plan");
            try (ResultSet rs = st.executeQuery("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE "
                    + "find_read('{}', '{" + id + "}')")) {
                while (rs.next()) {
                    text.append(rs.getString(1)).append('\n');
                }
            } finally {
                st.execute("RESET plan_cache_mode");
                st.execute("DEALLOCATE find_read");
            }
        }
        return text.toString();
    }
}
