package dev.sendlog.service.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Where autovacuum is off, nothing analyzes a day partition, and a plan the server cached while the partition was
 * nearly empty goes on scanning it whole as it fills. The statistics refresh analyzes what changed (autovacuum's
 * rule), which also makes the server plan such statements again. Only the maintenance component runs here, so the
 * rows written below are read by no poller or projector, and the scheduled refresh is an hour away: the test runs it.
 * The first test needs the partition nearly empty and never analyzed when it prepares, so it runs first.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StatisticsRefreshTest {
    private static final int MESSAGES = 20_000;

    @RegisterExtension
    static final ServiceHarness SERVICE =
            new ServiceHarness("components", "MAINTENANCE", "partitions.analyzeEvery", "1h");

    @Test
    @Order(1)
    void aPlanCachedOnANearlyEmptyPartitionIsMadeAgainOnceTheFilledPartitionIsAnalyzed() throws SQLException {
        try (Connection c = SERVICE.dataSource().getConnection();
                Statement st = c.createStatement()) {
            withoutAutovacuum(st);
            st.execute("SET plan_cache_mode = force_generic_plan");
            st.execute("""
                    PREPARE by_ids(uuid[]) AS SELECT m.id, e.seq FROM messages m JOIN message_events e ON e.message_id = m.id
                    WHERE m.id = ANY($1) AND e.message_id = ANY($1)""");
            insertMessages(SERVICE.dataSource(), st, 1_000);
            st.execute("EXECUTE by_ids('{}')");
            String partition = insertMessages(SERVICE.dataSource(), st, MESSAGES);
            String ids = "(SELECT array_agg(id) FROM (SELECT id FROM " + partition + " ORDER BY id DESC LIMIT 16) x)";
            st.execute("PREPARE some_ids AS SELECT " + ids);
            String before = plan(st, partition);
            assertThat(before)
                    .as("the plan cached while the partition held 1,000 messages")
                    .contains("Seq Scan on " + partition);

            ApiResponse analyze = SERVICE.admin().post("/tasks/analyze", "admin-1", "");
            assertThat(analyze.status()).as(analyze.raw()).isEqualTo(200);
            assertThat(analyze.raw()).contains(partition);

            String after = plan(st, partition);
            assertThat(after)
                    .as("the same prepared statement, planned again")
                    .doesNotContain("Seq Scan on " + partition)
                    .contains(partition + "_pkey");
        }
    }

    @Test
    @Order(2)
    void onlyTablesThatChangedEnoughAreAnalyzed() throws SQLException {
        String partition;
        try (Connection c = SERVICE.dataSource().getConnection();
                Statement st = c.createStatement()) {
            withoutAutovacuum(st);
            partition = insertMessages(SERVICE.dataSource(), st, MESSAGES);
        }
        assertThat(SERVICE.admin().post("/tasks/analyze", "admin-1", "").raw()).contains(partition);
        assertThat(SERVICE.admin().post("/tasks/analyze", "admin-1", "").raw())
                .as("nothing changed since")
                .doesNotContain(partition);
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT analyze_count FROM pg_stat_user_tables WHERE relname = 'parked_input'"))
                .as("a table nobody wrote to")
                .isZero();
        assertThat(SERVICE.admin()
                        .get("/metrics", null)
                        .json()
                        .path("counters")
                        .path("statistics.tables.analyzed")
                        .path("count")
                        .asLong())
                .isPositive();
    }

    /**
     * The refresh analyzes with the configured statistics target (10 by default, not PostgreSQL's 100): a twelfth of
     * the work per day partition. 20,000 distinct recipients would give a histogram of 101 bounds at 100; at 10, 11.
     */
    @Test
    @Order(3)
    void theRefreshAnalyzesWithTheConfiguredStatisticsTarget() throws SQLException {
        String partition;
        try (Connection c = SERVICE.dataSource().getConnection();
                Statement st = c.createStatement()) {
            withoutAutovacuum(st);
            partition = insertMessages(SERVICE.dataSource(), st, MESSAGES);
            st.execute("UPDATE " + partition
                    + " SET recipient = '+49151' || lpad((random() * 99999999)::int::text, 8, '0')");
        }
        assertThat(SERVICE.admin().post("/tasks/analyze", "admin-1", "").raw()).contains(partition);
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT array_length(histogram_bounds::text::text[], 1) FROM pg_stats" + " WHERE tablename = '"
                                + partition + "' AND attname = 'recipient'"))
                .as("histogram bounds of a column with 20,000+ distinct values")
                .isBetween(2L, 11L);
    }

    /**
     * Where autovacuum runs, it could analyze a partition in the middle of a test; here it must not, on any server.
     * (Setting this is DDL, which makes the server plan prepared statements again, so it comes before any is prepared.)
     */
    static void withoutAutovacuum(Statement st) throws SQLException {
        List<String> partitions = new ArrayList<>();
        try (ResultSet rs = st.executeQuery("SELECT inhrelid::regclass::text FROM pg_inherits"
                + " WHERE inhparent IN ('messages'::regclass, 'message_events'::regclass)")) {
            while (rs.next()) {
                partitions.add(rs.getString(1));
            }
        }
        for (String partition : partitions) {
            st.execute("ALTER TABLE " + partition + " SET (autovacuum_enabled = false)");
        }
    }

    /**
     * Writes {@code n} messages of now, each with a claim, in one statement (a temporary table would make the
     * server plan prepared statements again by itself: it changes the search path); returns their day partition.
     */
    static String insertMessages(DataSource dataSource, Statement st, int n) throws SQLException {
        String body = "statistics " + System.nanoTime();
        st.execute("WITH ids AS (SELECT (lpad(to_hex((extract(epoch FROM now()) * 1000)::bigint), 12, '0') || '7'"
                + " || substr(md5(random()::text), 1, 3) || '8' || substr(md5(random()::text), 1, 15))::uuid AS id"
                + " FROM generate_series(1, " + n + ")),"
                + " m AS (INSERT INTO messages (id, tenant, shard, recipient, body, gateway, accepted_at)"
                + " SELECT id, 'acme', 0, '+4915100000000', '" + body + "', 'sim', now() FROM ids RETURNING id)"
                + " INSERT INTO message_events (message_id, seq, at, type, actor, attempt, time2)"
                + " SELECT id, 3, now(), 3, (SELECT id FROM actors LIMIT 1), 1, now() FROM m");
        String partition;
        try (ResultSet rs =
                st.executeQuery("SELECT DISTINCT tableoid::regclass::text FROM messages WHERE body = '" + body + "'")) {
            List<String> partitions = new ArrayList<>();
            while (rs.next()) {
                partitions.add(rs.getString(1));
            }
            assertThat(partitions).hasSize(1);
            partition = partitions.getFirst();
        }
        // The server counts changes per table in each session and publishes them when the session goes idle, at most
        // once a second (or ten seconds later if it stays idle): asked to, it publishes them at the next idle moment.
        // Wait on the inserts counted, not on the changes since the last ANALYZE: a scheduled refresh may already have
        // analyzed the partition and set those back to zero.
        st.execute("SELECT pg_stat_force_next_flush()");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> Sql.count(
                                dataSource,
                                "SELECT (s.n_tup_ins >= (SELECT count(*) FROM " + partition
                                        + "))::int FROM pg_stat_user_tables s WHERE s.relname = '" + partition + "'")
                        == 1);
        return partition;
    }

    private static String plan(Statement st, String partition) throws SQLException {
        String ids;
        try (ResultSet rs = st.executeQuery("EXECUTE some_ids")) {
            rs.next();
            ids = rs.getString(1);
        }
        StringBuilder plan = new StringBuilder();
        try (ResultSet rs = st.executeQuery("EXPLAIN EXECUTE by_ids('" + ids + "')")) {
            while (rs.next()) {
                plan.append(rs.getString(1)).append('\n');
            }
        }
        return plan.toString();
    }
}
