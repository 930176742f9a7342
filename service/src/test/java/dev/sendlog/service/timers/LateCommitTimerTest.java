package dev.sendlog.service.timers;

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
 * No timer is ever skipped, even one whose transaction committed late: here a publication (which carries its confirm
 * deadline and watches its message from then on) commits after later messages. The timers find due publications by
 * their check time whenever they commit, with no cursor to pass over them, so the deadline fires and the message is
 * re-driven.
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
                    INSERT INTO publications (id, published_at, confirm_by, check_at, actor, message_ids, seqs, epochs)
                    VALUES (nextval('publications_id_seq'), ?::timestamptz, ?::timestamptz, ?::timestamptz,
                            (SELECT id FROM actors WHERE name = 'upgrade'), ARRAY[?::uuid], '{1}', '{1}')""")) {
                ps.setString(1, now.toString());
                ps.setString(2, now.plusSeconds(5).toString());
                ps.setString(3, now.plusSeconds(5).toString());
                ps.setObject(4, late);
                ps.executeUpdate();
            }
            // Meanwhile later messages commit (larger positions); a `position > last` reader would pass over t1 for
            // good.
            String other = Messages.submitOne(SERVICE, Messages.recipient());
            assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM messages WHERE id = '" + other + "'"))
                    .isEqualTo(1);
            t1.commit();
        }
        Messages.awaitAdvancing(
                SERVICE,
                Duration.ofSeconds(6),
                Duration.ofSeconds(60),
                () -> assertThat(Messages.history(SERVICE, late.toString()))
                        .filteredOn(e -> e.get("type").asText().equals("REDRIVEN")
                                && e.get("data").get("reason").asText().equals("PUBLISH_TIMEOUT"))
                        .isNotEmpty());
        // ...shown after the publication it timed out, and the poller publishes the re-driven attempt like any other
        // work.
        assertThat(Messages.events(SERVICE, late.toString(), "PUBLISHED")).isGreaterThanOrEqualTo(1);
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(Sql.count(
                                SERVICE.dataSource(),
                                "SELECT count(*) FROM publications WHERE '" + late + "' = ANY(message_ids)"))
                        .isGreaterThanOrEqualTo(2));
    }
}
