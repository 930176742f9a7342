package dev.sendlog.service.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.codahale.metrics.MetricRegistry;
import dev.sendlog.compactor.PartitionManager;
import dev.sendlog.events.MessageIds;
import dev.sendlog.events.Shards;
import dev.sendlog.service.config.PipelineSettings;
import dev.sendlog.service.faults.Faults;
import dev.sendlog.service.log.EventStore;
import dev.sendlog.service.log.NewEvent;
import dev.sendlog.service.queue.JobStream;
import dev.sendlog.service.queue.RedisConnections;
import dev.sendlog.service.queue.StreamKeys;
import dev.sendlog.service.send.SendStreams;
import dev.sendlog.service.support.Sql;
import dev.sendlog.testkit.TestDatabaseExtension;
import dev.sendlog.testkit.TestRedis;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The publisher's decision on each work row: publish it, skip it because something came after it, or refuse the
 * batch because this session cannot see the row yet (the change-data-capture feed reads a transaction from the slot a
 * moment before its commit is visible). A 20-minute CDC chaos run lost 11 re-driven messages to the second case
 * being taken for the first.
 */
class WorkPublisherTest {
    @RegisterExtension
    static final TestDatabaseExtension DB = new TestDatabaseExtension();

    private final String prefix = TestRedis.prefix();
    private EventStore store;
    private final MessageIds ids = new MessageIds(InstantSource.system());
    private RedisConnections redis;
    private JobStream stream;
    private DSLContext dsl;
    private WorkPublisher publisher;

    @BeforeEach
    void start() throws Exception {
        redis = new RedisConnections(TestRedis.endpoint().uri(), Duration.ofSeconds(5));
        stream = new JobStream(redis, StreamKeys.send(prefix), StreamKeys.SEND_GROUP, "test");
        stream.ensureGroup();
        dsl = DSL.using(DB.dataSource(), SQLDialect.POSTGRES);
        store = EventStore.of(DB.dataSource());
        new PartitionManager(DB.dataSource(), Duration.ofSeconds(5)).ensure(LocalDate.now(ZoneOffset.UTC), 1);
        PipelineSettings settings = new PipelineSettings();
        publisher = new WorkPublisher(
                dsl,
                store.actors(),
                SendStreams.single(settings.lanes(), stream),
                java.util.Set.copyOf(settings.lanes().all()),
                settings,
                InstantSource.system(),
                "test-poller",
                Faults.NONE,
                true,
                new MetricRegistry(),
                dev.sendlog.service.stats.Tallies.DISABLED);
    }

    @AfterEach
    void stop() {
        redis.close();
        TestRedis.deleteKeys(TestRedis.endpoint(), prefix);
    }

    @Test
    void aRedrivenRowThisSessionCannotSeeYetIsRefusedNotSkipped() {
        UUID id = acceptedMessage();
        // The slot delivered a REDRIVEN at seq 5; this session still sees only the message's acceptance.
        TailRow redriven = new TailRow(Shards.of(id, 16), id, 5, new TailCursor(1, 2), 2, Instant.now());

        assertThatThrownBy(() -> publisher.publish(List.of(redriven), shard -> 1L, tx -> {}))
                .isInstanceOf(WorkPublisher.NotVisibleYet.class);
        assertThat(stream.length()).as("nothing put on the stream").isZero();
        assertThat(Sql.count(DB.dataSource(), "SELECT count(*) FROM publications"))
                .isZero();
    }

    @Test
    void aMessageThisSessionCannotSeeYetIsRefusedNotSkipped() {
        UUID unseen = ids.next();
        assertThatThrownBy(() -> publisher.publish(List.of(accepted(unseen)), shard -> 1L, tx -> {}))
                .isInstanceOf(WorkPublisher.NotVisibleYet.class);
        assertThat(stream.length()).isZero();
    }

    @Test
    void aRowSomethingCameAfterIsSkippedAndAnOwedOneIsPublishedInOnePublicationRow() {
        UUID handled = acceptedMessage();
        append(
                handled,
                3,
                new dev.sendlog.events.Claimed(1, "test", Instant.now().plusSeconds(60)));
        UUID owed = acceptedMessage();
        UUID owedToo = acceptedMessage();

        int published =
                publisher.publish(List.of(accepted(handled), accepted(owed), accepted(owedToo)), shard -> 7L, tx -> {});

        assertThat(published).isEqualTo(2);
        assertThat(stream.length()).isEqualTo(2);
        assertThat(Sql.count(DB.dataSource(), "SELECT count(*) FROM publications"))
                .as("one row for the batch")
                .isEqualTo(1);
        assertThat(Sql.count(
                        DB.dataSource(),
                        "SELECT count(*) FROM publications WHERE message_ids = ARRAY['" + owed + "', '" + owedToo
                                + "']::uuid[] AND seqs = '{1,1}' AND epochs = '{7,7}' AND check_at = confirm_by"))
                .isEqualTo(1);
        assertThat(Sql.count(
                        DB.dataSource(),
                        "SELECT count(*) FROM message_events WHERE message_id IN ('" + owed + "', '" + owedToo + "')"))
                .as("no event row per message")
                .isZero();
        assertThat(store.rows(dsl, List.of(handled)).get(handled)).hasSize(1);
    }

    private UUID acceptedMessage() {
        UUID id = ids.next();
        dsl.execute(
                "INSERT INTO messages (id, tenant, shard, recipient, body, gateway, accepted_at) VALUES (?, 'demo', ?, "
                        + "'+4915100000001', 'hi', 'sim', now())",
                id,
                Shards.of(id, 16));
        return id;
    }

    private void append(UUID id, int seq, dev.sendlog.events.MessageEvent event) {
        dsl.transaction(cfg -> store.append(
                cfg.dsl(), List.of(new NewEvent(id, seq, Shards.of(id, 16), "test", Instant.now(), event))));
    }

    private static TailRow accepted(UUID id) {
        return new TailRow(Shards.of(id, 16), id, 1, new TailCursor(1, 1), 1, Instant.now());
    }
}
