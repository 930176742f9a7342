package dev.sendlog.service.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sendlog.service.queue.StreamKeys;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The high lane's poller publishes committed work past the snapshot fence (a high message does not wait for every
 * older transaction to end), while the cursors, and the normal lane, keep to the fence (invariant 12): once the fence
 * passes, the normal message is published and the high one is not published again.
 */
class HighLaneReadAheadTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
            "components",
            "API,POLLER",
            // No redrives while the jobs wait on the stream (no worker takes them here).
            "pipeline.confirmTimeout",
            "10m");

    @Test
    void aHighMessageIsPublishedWhileAnOlderTransactionIsOpenAndOnlyOnceWhenTheFencePassesIt() throws Exception {
        RedisClient client = SERVICE.redisClient();
        try (StatefulRedisConnection<String, String> redis = SERVICE.redisConnection(client)) {
            String normalKey = StreamKeys.send(SERVICE.redisPrefix());
            String highKey = StreamKeys.sendHigh(SERVICE.redisPrefix());
            String high;
            try (Connection open = SERVICE.dataSource().getConnection();
                    Statement st = open.createStatement()) {
                open.setAutoCommit(false);
                // A transaction holding an xid, begun before both messages: the snapshot fence stays below it.
                st.execute("SELECT pg_current_xact_id()");
                submit(null);
                high = submit("high");
                await().atMost(WAIT).until(() -> redis.sync().xlen(highKey) == 1);
                assertThat(redis.sync().xlen(normalKey))
                        .as("normal work waits for the fence")
                        .isZero();
                assertThat(cursorPassed(high))
                        .as("the high shard's cursor keeps to the fence")
                        .isFalse();
                open.rollback();
            }
            await().atMost(WAIT).until(() -> redis.sync().xlen(normalKey) == 1);
            await().atMost(WAIT).until(() -> cursorPassed(high));
            assertThat(redis.sync().xlen(highKey))
                    .as("published once, ahead of the fence")
                    .isEqualTo(1);
            assertThat(publicationsNaming(high)).isEqualTo(1);
        } finally {
            client.shutdown();
        }
    }

    private static String submit(String priority) {
        String field = priority == null ? "" : ",\"priority\":\"" + priority + "\"";
        ApiResponse r = SERVICE.api()
                .post(
                        "/v1/messages",
                        "client-a",
                        "{\"to\":\"" + Messages.recipient() + "\",\"body\":\"read ahead\"" + field + "}");
        assertThat(r.status()).isEqualTo(202);
        return r.json().get("id").asText();
    }

    /** Whether the message's shard's publish cursor has moved past its row. */
    private static boolean cursorPassed(String id) throws SQLException {
        return one("""
                SELECT count(*) FROM shard_leases l JOIN messages m ON m.shard = l.shard
                WHERE m.id = ?::uuid AND (l.publish_xid, l.publish_position) >= (m.xid, m.position)""", id) == 1;
    }

    private static long publicationsNaming(String id) throws SQLException {
        return one("SELECT count(*) FROM publications WHERE ?::uuid = ANY(message_ids)", id);
    }

    private static long one(String sql, String id) throws SQLException {
        try (Connection c = SERVICE.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
