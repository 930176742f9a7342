package dev.sendlog.service.log;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import dev.sendlog.compactor.PartitionManager;
import dev.sendlog.events.MessageIds;
import dev.sendlog.events.Resolved;
import dev.sendlog.events.Shards;
import dev.sendlog.projections.MessageState;
import dev.sendlog.testkit.TestDatabaseExtension;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A publication's next check, as the timers set it after a check, keeps a wake that a worker's write brought in while
 * the check ran. The timers decide from the state they read when they took the publication; a worker's write committed
 * after that read (an acceptance recorded late, a retry sooner than the claim's deadline) brings the check forward, and
 * the timers' answer must not put it back: for a late acceptance the answer was "nothing left to watch", and the message
 * would have been watched by nothing.
 */
class PublicationChecksTest {
    @RegisterExtension
    static final TestDatabaseExtension DB = new TestDatabaseExtension();

    private static final Duration LEASE = Duration.ofSeconds(60);

    private DSLContext dsl;
    private EventStore store;
    private EventAppender appender;
    private Publications publications;

    @BeforeEach
    void start() throws Exception {
        dsl = DSL.using(DB.dataSource(), SQLDialect.POSTGRES);
        store = EventStore.of(DB.dataSource());
        new PartitionManager(DB.dataSource(), Duration.ofSeconds(5)).ensure(LocalDate.now(ZoneOffset.UTC), 1);
        appender = new EventAppender(dsl, store, 1, new MetricRegistry(), "append");
        appender.start();
        publications = new Publications(dsl);
    }

    @AfterEach
    void stop() throws Exception {
        appender.stop();
    }

    @Test
    void aWakeDuringACheckIsKeptAndAPlainCheckSetsWhatTheTimersDecided() {
        UUID id = new MessageIds(InstantSource.system()).next();
        short shard = Shards.of(id, 16);
        dsl.execute(
                "INSERT INTO messages (id, tenant, shard, recipient, body, gateway, accepted_at) VALUES (?, 'acme', ?, "
                        + "'+4915100000001', 'hi', 'sim', now())",
                id,
                shard);
        Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
        long publication = 41;
        dsl.transaction(cfg -> Publications.record(
                cfg.dsl(),
                publication,
                now.minusSeconds(10),
                now.minusSeconds(1),
                store.actors().id("test-poller"),
                new UUID[] {id},
                new Integer[] {1},
                new Long[] {1L}));

        // The timers take it (its check moves to the end of their lease) and read the message...
        assertThat(publications.takeDue(now, 4, LEASE, store.actors())).hasSize(1);
        // ...a worker's write lands meanwhile and wakes the publication...
        Instant wake = now.plusSeconds(2);
        MessageState state =
                new MessageReader(dsl, store).find(id).orElseThrow().state();
        NewEvent discard = new NewEvent(
                id,
                state.nextSeq(),
                shard,
                "support-1",
                Instant.now(),
                new Resolved(1, Resolved.Action.DISCARD, null, "a write that wakes the publication"));
        assertThat(appender.append(List.of(discard), null, new PublicationWake(publication, wake)))
                .hasSize(1);
        // ...and the timers, having decided without it, say nothing is left to watch.
        publications.setChecks(nothing(publication), now, LEASE);
        assertThat(checkAt(publication)).as("the wake is kept").isEqualTo(wake);

        // Taken at the wake, checked, nothing written meanwhile: the timers' answer stands.
        assertThat(publications.takeDue(wake, 4, LEASE, store.actors())).hasSize(1);
        publications.setChecks(nothing(publication), wake, LEASE);
        assertThat(checkAt(publication)).isNull();

        // A later answer than a wake during the check is not taken either: the sooner of the two.
        dsl.execute("UPDATE publications SET check_at = ?::timestamptz WHERE id = ?", now.toString(), publication);
        assertThat(publications.takeDue(now, 4, LEASE, store.actors())).hasSize(1);
        dsl.execute("UPDATE publications SET check_at = ?::timestamptz WHERE id = ?", wake.toString(), publication);
        publications.setChecks(Map.of(publication, now.plusSeconds(30)), now, LEASE);
        assertThat(checkAt(publication)).isEqualTo(wake);
        assertThat(publications.takeDue(wake, 4, LEASE, store.actors())).hasSize(1);
        publications.setChecks(Map.of(publication, now.plusSeconds(30)), wake, LEASE);
        assertThat(checkAt(publication)).isEqualTo(now.plusSeconds(30));
    }

    private static Map<Long, Instant> nothing(long publication) {
        Map<Long, Instant> next = new HashMap<>();
        next.put(publication, null);
        return next;
    }

    private Instant checkAt(long publication) {
        OffsetDateTime at = dsl.fetchSingle("SELECT check_at FROM publications WHERE id = ?", publication)
                .get(0, OffsetDateTime.class);
        return at == null ? null : at.toInstant();
    }
}
