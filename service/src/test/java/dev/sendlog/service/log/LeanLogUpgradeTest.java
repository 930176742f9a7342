package dev.sendlog.service.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sendlog.compactor.PartitionManager;
import dev.sendlog.events.Accepted;
import dev.sendlog.events.AttemptFailed;
import dev.sendlog.events.Claimed;
import dev.sendlog.events.Compacted;
import dev.sendlog.events.Dead;
import dev.sendlog.events.EncodedEvent;
import dev.sendlog.events.EventCodec;
import dev.sendlog.events.MessageEvent;
import dev.sendlog.events.MessageIds;
import dev.sendlog.events.ProviderAccepted;
import dev.sendlog.events.Published;
import dev.sendlog.events.Receipt;
import dev.sendlog.events.ReceiptKind;
import dev.sendlog.events.RedriveReason;
import dev.sendlog.events.Redriven;
import dev.sendlog.events.Shards;
import dev.sendlog.events.StoredEvent;
import dev.sendlog.projections.MessageStatus;
import dev.sendlog.schema.Migrations;
import dev.sendlog.service.publish.LogTail;
import dev.sendlog.service.publish.TailCursor;
import dev.sendlog.service.publish.TailRow;
import dev.sendlog.service.receipts.ReceiptMatcher;
import dev.sendlog.service.support.Sql;
import dev.sendlog.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.flywaydb.core.Flyway;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The lean log's migration (V8) upgrades a database the previous schema filled, as the pipeline of V7 wrote it: every
 * event a JSON payload, ACCEPTED and PUBLISHED rows of their own, the status projection, provider_refs, and ledger keys
 * of the form charge:id. After the upgrade every history reads as before (old payloads through the codec's upcasters,
 * an old CLAIMED v1 among them, and a v2 snapshot), and what the new layout reads from its own columns works on the
 * old rows: search by final status, receipt matching by provider id, the poller's tail of owed work, the timers'
 * watch of messages in flight, the ledger's key, and the next append.
 */
class LeanLogUpgradeTest {
    private static final EventCodec CODEC = new EventCodec();
    private static final LocalDate DAY = LocalDate.now(ZoneOffset.UTC);
    private static final Instant T = DAY.atTime(9, 0).toInstant(ZoneOffset.UTC);

    private TestDatabase db;
    private final MessageIds ids = new MessageIds(() -> T);
    private final Map<UUID, List<StoredEvent>> written = new LinkedHashMap<>();

    @BeforeEach
    void previousSchema() throws Exception {
        db = TestDatabase.createEmpty();
        Flyway.configure()
                .dataSource(db.dataSource())
                .locations("classpath:db/migration")
                .target("7")
                .load()
                .migrate();
        new PartitionManager(db.dataSource(), Duration.ofSeconds(5)).ensure(DAY, 1);
        Sql.exec(db.dataSource(), "INSERT INTO shard_leases (shard) SELECT s FROM generate_series(0, 15) s");
    }

    @AfterEach
    void drop() {
        db.close();
    }

    @Test
    void historiesWrittenBeforeTheLeanLogReadTheSameAndWorkOnItsIndexes() throws Exception {
        UUID delivered = message(
                List.of(
                        accepted(),
                        published(1),
                        claimed(1),
                        acceptedByProvider(1, "p-1"),
                        receipt(ReceiptKind.INTERMEDIATE, "p-1", "ENROUTE", 7),
                        receipt(ReceiptKind.DELIVERED, "p-1", "DELIVRD", 8)),
                "DELIVERED");
        // A claim that won the seq before its PUBLISHED row (the defect of the old layout): no PUBLISHED in the
        // history.
        UUID sent = message(List.of(accepted(), claimed(1), acceptedByProvider(1, "p-2")), "SENT");
        UUID pending = message(List.of(accepted()), "ACCEPTED");
        UUID redriven = message(List.of(accepted(), published(1), claimed(1), failed(1), retry(2)), "RETRYING");
        UUID dead =
                message(List.of(accepted(), published(1), claimed(1), new Dead(1, "attempt limit 1 reached")), "DEAD");
        UUID compacted = compactedMessage();
        try (Connection c = db.connect()) {
            // A CLAIMED of payload version 1 (the deadline in epoch milliseconds), as the first builds wrote it.
            UUID v1 = ids.next();
            written.put(
                    v1,
                    List.of(
                            new StoredEvent(v1, 1, T, "api", new Accepted("acme", "sim")),
                            new StoredEvent(
                                    v1,
                                    2,
                                    T.plusSeconds(1),
                                    "worker-1",
                                    new Claimed(1, "worker-1", T.plusSeconds(60)))));
            insertMessage(c, v1);
            insertRaw(c, v1, 1, "ACCEPTED", 1, "api", "{\"tenant\":\"acme\",\"gateway\":\"sim\"}");
            insertRaw(
                    c,
                    v1,
                    2,
                    "CLAIMED",
                    1,
                    "worker-1",
                    "{\"attempt\":1,\"worker\":\"worker-1\",\"deadlineEpochMs\":"
                            + T.plusSeconds(60).toEpochMilli() + "}");
            projection(c, v1, "SENDING", 2);
        }
        Sql.exec(
                db.dataSource(),
                "INSERT INTO ledger (effect_key, message_id, tenant, gateway, provider_id, units, charged_at) "
                        + "VALUES ('charge:" + delivered + "', '" + delivered + "', 'acme', 'sim', 'p-1', 1, now()), "
                        + "('charge:" + sent + "', '" + sent + "', 'acme', 'sim', 'p-2', 1, now())");

        Migrations.migrate(db.dataSource());

        DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
        EventStore store = EventStore.of(db.dataSource());
        MessageReader reader = new MessageReader(dsl, store);
        Map<UUID, MessageDetails> read = reader.findMany(written.keySet());
        for (Map.Entry<UUID, List<StoredEvent>> e : written.entrySet()) {
            assertThat(read.get(e.getKey()).events())
                    .as("history of %s", e.getKey())
                    .isEqualTo(e.getValue());
        }
        assertThat(read.get(delivered).state().status()).isEqualTo(MessageStatus.DELIVERED);
        assertThat(read.get(compacted).state().status()).isEqualTo(MessageStatus.DELIVERED);

        // Search by a final status reads the marks the upgrade put on the events that ended each message.
        assertThat(reader.search(query(MessageStatus.DELIVERED)).items())
                .extracting(d -> d.row().id())
                .containsExactlyInAnyOrder(delivered, compacted);
        assertThat(reader.search(query(MessageStatus.DEAD)).items())
                .extracting(d -> d.row().id())
                .containsExactly(dead);
        assertThat(reader.search(query(MessageStatus.SENT)).items())
                .extracting(d -> d.row().id())
                .containsExactly(sent);

        // Receipt matching without our reference finds the old acceptance by its provider id.
        assertThat(new ReceiptMatcher(dsl).latestUses(List.of(new ReceiptMatcher.ProviderKey("sim", "p-2"))))
                .containsValue(sent);

        // The poller's tail still owes exactly the work nobody had published: the new message and the re-drive.
        List<TailRow> owed = new LogTail(db.dataSource())
                .work(
                        List.of(Shards.of(pending, 16), Shards.of(redriven, 16)),
                        List.of(TailCursor.START, TailCursor.START),
                        100);
        assertThat(owed).extracting(TailRow::messageId).contains(pending, redriven);
        assertThat(owed)
                .filteredOn(r -> r.messageId().equals(redriven))
                .extracting(TailRow::seq, TailRow::attempt)
                .contains(org.assertj.core.groups.Tuple.tuple(5, 2));

        // The timers watch what was in flight past its publication (checked at once), not what is owed to the poller.
        Set<UUID> watched =
                Set.copyOf(dsl.resultQuery("SELECT unnest(message_ids) FROM publications WHERE check_at IS NOT NULL")
                        .fetch(0, UUID.class));
        assertThat(watched).contains(sent).doesNotContain(pending, redriven, delivered, dead);

        // The ledger keeps one charge per message, keyed by the message id.
        assertThat(Sql.count(
                        db.dataSource(),
                        "SELECT count(*) FROM ledger WHERE effect_key IN ('" + delivered + "', '" + sent + "')"))
                .isEqualTo(2);

        // And the next fact about an old message is a typed row at the next seq.
        MessageDetails before = read.get(sent);
        Receipt late = new Receipt(ReceiptKind.DELIVERED, "sim", "p-2", "DELIVRD", T.plusSeconds(9), null, 9);
        dsl.transaction(cfg -> store.append(
                cfg.dsl(),
                List.of(new NewEvent(
                        sent, before.state().nextSeq(), Shards.of(sent, 16), "callbacks-1", T.plusSeconds(10), late))));
        MessageDetails after = reader.find(sent).orElseThrow();
        assertThat(after.state().status()).isEqualTo(MessageStatus.DELIVERED);
        assertThat(after.events().getLast().event()).isEqualTo(late);
    }

    private static SearchQuery query(MessageStatus status) {
        return new SearchQuery("acme", null, null, status, null, null, 50, null);
    }

    /** Writes a history as V7's pipeline did, and the status projection row its projector kept. */
    private UUID message(List<MessageEvent> events, String status) throws Exception {
        UUID id = ids.next();
        List<StoredEvent> history = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            history.add(new StoredEvent(id, i + 1, T.plusSeconds(i), actorOf(events.get(i)), events.get(i)));
        }
        try (Connection c = db.connect()) {
            insertMessage(c, id);
            for (StoredEvent e : history) {
                EncodedEvent encoded = CODEC.encode(e.event());
                insertRaw(c, id, e.seq(), encoded.type().name(), encoded.version(), e.actor(), encoded.json(), e.at());
                if (e.event() instanceof ProviderAccepted pa) {
                    try (PreparedStatement ps = c.prepareStatement("INSERT INTO provider_refs VALUES (?, ?, ?, ?)")) {
                        ps.setString(1, pa.gateway());
                        ps.setString(2, pa.providerId());
                        ps.setObject(3, id);
                        ps.setObject(4, OffsetDateTime.ofInstant(e.at(), ZoneOffset.UTC));
                        ps.executeUpdate();
                    }
                }
            }
            projection(c, id, status, history.size());
        }
        written.put(id, history);
        return id;
    }

    /** A delivered message compacted under V7: one COMPACTED v2 row holding its whole history. */
    private UUID compactedMessage() throws Exception {
        UUID id = ids.next();
        List<MessageEvent> events = List.of(
                accepted(),
                published(1),
                claimed(1),
                acceptedByProvider(1, "p-3"),
                receipt(ReceiptKind.DELIVERED, "p-3", "DELIVRD", 4));
        List<StoredEvent> history = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            history.add(new StoredEvent(id, i + 1, T.plusSeconds(i), actorOf(events.get(i)), events.get(i)));
        }
        StoredEvent snapshot =
                new StoredEvent(id, history.size(), history.getLast().at(), "compactor", new Compacted(history));
        try (Connection c = db.connect()) {
            insertMessage(c, id);
            EncodedEvent encoded = CODEC.encode(snapshot.event());
            assertThat(encoded.version()).isEqualTo(2);
            insertRaw(c, id, snapshot.seq(), "COMPACTED", 2, "compactor", encoded.json(), snapshot.at());
            projection(c, id, "DELIVERED", snapshot.seq());
        }
        written.put(id, List.of(snapshot));
        return id;
    }

    private static void insertMessage(Connection c, UUID id) throws Exception {
        try (PreparedStatement ps =
                c.prepareStatement("INSERT INTO messages (id, tenant, shard, recipient, body, gateway, "
                        + "accepted_at) VALUES (?, 'acme', ?, '+4915100000001', 'hello', 'sim', ?)")) {
            ps.setObject(1, id);
            ps.setShort(2, Shards.of(id, 16));
            ps.setObject(3, OffsetDateTime.ofInstant(T, ZoneOffset.UTC));
            ps.executeUpdate();
        }
    }

    private static void insertRaw(Connection c, UUID id, int seq, String type, int version, String actor, String json)
            throws Exception {
        insertRaw(c, id, seq, type, version, actor, json, T.plusSeconds(seq - 1));
    }

    private static void insertRaw(
            Connection c, UUID id, int seq, String type, int version, String actor, String json, Instant at)
            throws Exception {
        try (PreparedStatement ps =
                c.prepareStatement("INSERT INTO message_events (message_id, seq, shard, type, version, "
                        + "actor, at, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?::jsonb)")) {
            ps.setObject(1, id);
            ps.setInt(2, seq);
            ps.setShort(3, Shards.of(id, 16));
            ps.setString(4, type);
            ps.setShort(5, (short) version);
            ps.setString(6, actor);
            ps.setObject(7, OffsetDateTime.ofInstant(at, ZoneOffset.UTC));
            ps.setString(8, json);
            ps.executeUpdate();
        }
    }

    private static void projection(Connection c, UUID id, String status, int lastSeq) throws Exception {
        try (PreparedStatement ps =
                c.prepareStatement("INSERT INTO message_status (message_id, tenant, shard, status, last_seq) "
                        + "VALUES (?, 'acme', ?, ?, ?)")) {
            ps.setObject(1, id);
            ps.setShort(2, Shards.of(id, 16));
            ps.setString(3, status);
            ps.setInt(4, lastSeq);
            ps.executeUpdate();
        }
    }

    private static String actorOf(MessageEvent e) {
        return switch (e) {
            case Accepted a -> "api";
            case Published p -> "poller-1";
            case Receipt r -> "callbacks-1";
            case Redriven r -> "timer";
            default -> "worker-1";
        };
    }

    private static Accepted accepted() {
        return new Accepted("acme", "sim");
    }

    private static Published published(int attempt) {
        return new Published(attempt, 3, T.plusSeconds(30));
    }

    private static Claimed claimed(int attempt) {
        return new Claimed(attempt, "worker-1", T.plusSeconds(90).truncatedTo(ChronoUnit.MILLIS));
    }

    private static ProviderAccepted acceptedByProvider(int attempt, String providerId) {
        return new ProviderAccepted(attempt, "sim", providerId);
    }

    private static AttemptFailed failed(int attempt) {
        return new AttemptFailed(attempt, "HTTP 503", T.plusSeconds(5));
    }

    private static Redriven retry(int attempt) {
        return new Redriven(attempt, RedriveReason.RETRY_DUE);
    }

    private static Receipt receipt(ReceiptKind kind, String providerId, String status, int second) {
        return new Receipt(kind, "sim", providerId, status, T.plusSeconds(second), null, second);
    }
}
