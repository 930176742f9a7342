package dev.sendlog.service.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sendlog.events.MessageIds;
import dev.sendlog.events.Shards;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * No timer is ever skipped, even one whose transaction committed late: here a message's PUBLISHED event
 * (which carries a confirm-by deadline) commits after a later message's events. The projector's snapshot-safe
 * cursor still folds it, so the deadline is seen and the timer re-drives the message.
 */
class LateCommitTimerTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness("components", "API,POLLER,MAINTENANCE");

    @Test
    void aDeadlineCommittedLateStillFires() throws Exception {
        UUID late = new MessageIds(SERVICE.clock()).next();
        short shard = Shards.of(late, 4);
        Instant now = SERVICE.now();
        try (Connection t1 = SERVICE.dataSource().getConnection()) {
            t1.setAutoCommit(false);
            try (PreparedStatement ps = t1.prepareStatement("""
                    INSERT INTO messages (id, tenant, shard, recipient, body, gateway, accepted_at)
                    VALUES (?, 'acme', ?, '+4915199999999', 'late', 'sim', ?::timestamptz)""")) {
                ps.setObject(1, late);
                ps.setShort(2, shard);
                ps.setString(3, now.toString());
                ps.executeUpdate();
            }
            try (PreparedStatement ps = t1.prepareStatement("""
                    INSERT INTO message_events (message_id, seq, shard, type, version, actor, at, data) VALUES
                    (?, 1, ?, 'ACCEPTED', 1, 'api', ?::timestamptz, '{"tenant":"acme","gateway":"sim"}'),
                    (?, 2, ?, 'PUBLISHED', 1, 'poller-x', ?::timestamptz,
                     jsonb_build_object('attempt', 1, 'epoch', 1, 'confirmBy', ?::text))""")) {
                ps.setObject(1, late);
                ps.setShort(2, shard);
                ps.setString(3, now.toString());
                ps.setObject(4, late);
                ps.setShort(5, shard);
                ps.setString(6, now.toString());
                ps.setString(7, now.plusSeconds(5).toString());
                ps.executeUpdate();
            }
            // Meanwhile later messages commit (larger positions); a `position > last` reader would pass over t1 for good.
            String other = Messages.submitOne(SERVICE, Messages.recipient());
            assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM messages WHERE id = '" + other + "'")).isEqualTo(1);
            t1.commit();
        }
        Messages.awaitAdvancing(SERVICE, Duration.ofSeconds(6), Duration.ofSeconds(60), () ->
                assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM message_events WHERE message_id = '" + late
                        + "' AND type = 'REDRIVEN' AND data->>'reason' = 'PUBLISH_TIMEOUT'")).isGreaterThanOrEqualTo(1));
        // ...and the poller publishes the re-driven attempt like any other work.
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(Sql.count(SERVICE.dataSource(),
                "SELECT count(*) FROM message_events WHERE message_id = '" + late + "' AND type = 'PUBLISHED'")).isGreaterThanOrEqualTo(2));
    }
}
