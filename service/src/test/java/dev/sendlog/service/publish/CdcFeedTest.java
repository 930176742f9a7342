package dev.sendlog.service.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.events.MessageIds;
import dev.sendlog.events.Shards;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.UUID;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The change-data-capture feed against a PostgreSQL of the tests' own with {@code wal_level=logical}. No send workers
 * run here, so what the feed published stays visible: its publications in the log and its jobs on the stream.
 */
class CdcFeedTest {
    private static final int SHARDS = 16;
    private static final MessageIds IDS = new MessageIds(InstantSource.system());
    private static final Duration WAIT = Duration.ofSeconds(60);

    @RegisterExtension
    static final ServiceHarness SERVICE =
            new ServiceHarness("components", "API,POLLER", "pipeline.shards", Integer.toString(SHARDS)).cdcFeed();

    /**
     * Invariant 12 in CDC mode: two transactions commit out of order. The slot delivers in commit order, so the one
     * committed first is published while the other is still open (a snapshot-safe tail would hold it back until
     * then), and the one committed late is published when it commits: nothing skipped, nothing published twice.
     */
    @Test
    void aTransactionCommittedLateIsStillPublishedAndTheOneCommittedFirstDoesNotWaitForIt() throws Exception {
        String template = Messages.submit(SERVICE, 1).getFirst();
        await().atMost(WAIT).until(() -> Messages.publications(SERVICE, template) == 1);

        UUID early = IDS.next();
        UUID late = IDS.next();
        try (Connection a = SERVICE.database().connect();
                Connection b = SERVICE.database().connect()) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            acceptLike(a, template, early); // the smaller xid and position...
            acceptLike(b, template, late);
            b.commit(); // ...but the later commit

            await().atMost(WAIT).until(() -> Messages.publications(SERVICE, late.toString()) == 1);
            assertThat(Messages.publications(SERVICE, early.toString()))
                    .as("its transaction is still open")
                    .isZero();
            a.commit();
        }
        await().atMost(WAIT).until(() -> Messages.publications(SERVICE, early.toString()) == 1);

        for (UUID id : List.of(early, late)) {
            assertThat(Messages.publications(SERVICE, id.toString()))
                    .as("published once: " + id)
                    .isEqualTo(1);
        }
        // The shard owners keep the publish cursors past handled work, so "oldest unpublished" means the same as
        // when polling (the pollers health check), and a switch back to polling starts there.
        Messages.awaitCount(SERVICE, """
                SELECT count(*) FROM messages m JOIN shard_leases l ON l.shard = m.shard
                WHERE (m.xid, m.position) > (l.publish_xid, l.publish_position)""", 0, WAIT);
        JsonNode pollers = SERVICE.admin().get("/healthcheck", null).json().get("pollers");
        assertThat(pollers.get("healthy").asBoolean()).as(pollers.toString()).isTrue();
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT count(*) FROM feed_slots WHERE caught_up_at IS NOT NULL AND epoch >= 1"))
                .as("the slot was taken and caught up")
                .isEqualTo(1);
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT count(*) FROM publications p "
                                + "CROSS JOIN unnest(p.message_ids, p.epochs) AS u(message_id, epoch) "
                                + "WHERE u.message_id IN ('" + early + "', '" + late + "', '" + template + "') "
                                + "AND u.epoch = (SELECT epoch FROM feed_slots)"))
                .as("published under the slot's epoch")
                .isEqualTo(3);
    }

    /**
     * The slot is watched (gauges and the cdc-slot health check) and can be dropped. Dropped under a running feed,
     * it is created again, and the work committed while no slot existed is published by the catch-up, not lost.
     */
    @Test
    void aDroppedSlotIsCreatedAgainAndWorkCommittedMeanwhileIsPublished() throws Exception {
        String before = Messages.submit(SERVICE, 1).getFirst();
        await().atMost(WAIT).until(() -> Messages.publications(SERVICE, before) == 1);

        JsonNode health = SERVICE.admin().get("/healthcheck", null).json().get("cdc-slot");
        assertThat(health.get("healthy").asBoolean()).as(health.toString()).isTrue();
        assertThat(health.get("message").asText()).contains("read by poller-").contains("bytes of WAL");
        JsonNode gauges = SERVICE.admin().get("/metrics", null).json().get("gauges");
        assertThat(gauges.get("cdc.slot.retained.wal.bytes").get("value").asLong())
                .isGreaterThanOrEqualTo(0);
        assertThat(gauges.get("cdc.slot.lag.bytes").get("value").asLong()).isGreaterThanOrEqualTo(0);

        String slotName = SERVICE.feedOverrides().get("pipeline.cdc.slot");
        FeedSlot slot = new FeedSlot(DSL.using(SERVICE.dataSource(), SQLDialect.POSTGRES), slotName, "sendlog_feed");
        assertThatThrownBy(() -> slot.drop(false))
                .as("a slot being read is not dropped without --force")
                .hasMessageContaining("is being read by");
        long epochBefore = Sql.count(SERVICE.dataSource(), "SELECT epoch FROM feed_slots");
        // Dropped, and in the same breath more work commits: no slot exists to replay it.
        assertThat(slot.drop(true)).isTrue();
        List<String> meanwhile = Messages.submit(SERVICE, 50);
        for (String id : meanwhile) {
            await().atMost(WAIT).until(() -> Messages.publications(SERVICE, id) == 1);
        }
        assertThat(slot.exists()).as("created again by the feed").isTrue();
        assertThat(Sql.count(SERVICE.dataSource(), "SELECT epoch FROM feed_slots"))
                .isGreaterThan(epochBefore);
        String after = Messages.submit(SERVICE, 1).getFirst();
        await().atMost(WAIT).until(() -> Messages.publications(SERVICE, after) == 1);
        assertThat(Messages.publications(SERVICE, before))
                .as("nothing published twice")
                .isEqualTo(1);
    }

    /** A copy of the template message's row (its acceptance) under a new id, in the caller's transaction. */
    /**
     * Scheduled send (issue 26) in CDC mode: the slot delivers the scheduled message's row at once, but it is no work
     * until due (the slot does not carry send_at; the publisher's visibility read counts its SCHEDULED), so only the
     * REDRIVEN the due scan appends at its time is published, once.
     */
    @Test
    void aScheduledMessageIsPublishedOnlyWhenDue() {
        java.time.Instant sendAt = SERVICE.now().plusSeconds(60);
        com.fasterxml.jackson.databind.JsonNode r = SERVICE.api()
                .post(
                        "/v1/messages",
                        "client-a",
                        "{\"to\":\"" + Messages.recipient() + "\",\"body\":\"later\",\"sendAt\":\"" + sendAt + "\"}")
                .json();
        String scheduled = r.get("id").asText();
        String control = Messages.submit(SERVICE, 1).getFirst();
        await().atMost(WAIT).until(() -> Messages.publications(SERVICE, control) == 1);
        assertThat(Messages.publications(SERVICE, scheduled))
                .as("not due: not published")
                .isZero();

        SERVICE.clock().advance(Duration.ofSeconds(61));
        await().atMost(WAIT).until(() -> Messages.publications(SERVICE, scheduled) == 1);
        assertThat(Messages.events(SERVICE, scheduled, "REDRIVEN")).isEqualTo(1);
        assertThat(SERVICE.api()
                        .get("/v1/messages/" + scheduled, "client-a")
                        .json()
                        .get("status")
                        .asText())
                .isEqualTo("ACCEPTED");
    }

    private static void acceptLike(Connection c, String template, UUID id) throws SQLException {
        short shard = Shards.of(id, SHARDS);
        try (PreparedStatement ps = c.prepareStatement("""
                INSERT INTO messages (id, tenant, shard, reference, idempotency_key, recipient, body, gateway, metadata, accepted_at)
                SELECT ?, tenant, ?, reference, NULL, recipient, body, gateway, metadata, accepted_at
                FROM messages WHERE id = ?::uuid""")) {
            ps.setObject(1, id);
            ps.setShort(2, shard);
            ps.setString(3, template);
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }
    }
}
