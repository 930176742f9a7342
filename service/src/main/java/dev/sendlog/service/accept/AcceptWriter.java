package dev.sendlog.service.accept;

import static dev.sendlog.schema.jooq.Tables.IDEMPOTENCY_KEYS;
import static dev.sendlog.schema.jooq.Tables.MESSAGES;

import dev.sendlog.events.Lanes;
import dev.sendlog.events.MessageIds;
import dev.sendlog.events.Priority;
import dev.sendlog.log.Histories;
import dev.sendlog.service.db.LaneLayout;
import dev.sendlog.service.errors.FieldError;
import dev.sendlog.service.log.SqlFailures;
import dev.sendlog.service.stats.Tallies;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.InsertValuesStep5;
import org.jooq.Record2;
import org.jooq.Record5;
import org.jooq.Row2;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes submissions in one transaction: idempotency keys and message rows. A message row is its acceptance (the
 * history shows it as ACCEPTED, seq 1) and carries the tail columns the poller reads: nothing else is appended. Its
 * shard, chosen here by its id and priority ({@link Lanes}), is where its priority is kept: every later event of the
 * message carries the same shard.
 * Completes each submission's future only after the commit (invariant 1), or with the reason nothing
 * was written. Submissions of one call never share an idempotency key (the caller defers repeats).
 */
public final class AcceptWriter {
    private static final Logger LOG = LoggerFactory.getLogger(AcceptWriter.class);
    private static final int MAX_RETRIES = 3;

    private final DSLContext dsl;
    private final MessageIds ids;
    private final InstantSource clock;
    private final Lanes lanes;
    private final Duration idempotencyTtl;
    private final Tallies tallies;

    public AcceptWriter(DSLContext dsl, MessageIds ids, InstantSource clock, Lanes lanes, Duration idempotencyTtl) {
        this(dsl, ids, clock, lanes, idempotencyTtl, Tallies.DISABLED);
    }

    /** {@code tallies} counts the messages accepted, per gateway and tenant (the console's pipeline view). */
    public AcceptWriter(
            DSLContext dsl,
            MessageIds ids,
            InstantSource clock,
            Lanes lanes,
            Duration idempotencyTtl,
            Tallies tallies) {
        this.tallies = tallies;
        this.dsl = dsl;
        this.ids = ids;
        this.clock = clock;
        this.lanes = lanes;
        this.idempotencyTtl = idempotencyTtl;
    }

    private void tally(Submission submission, SubmissionOutcome outcome) {
        if (outcome instanceof SubmissionOutcome.Committed c) {
            for (int i = 0; i < c.items().size() && i < submission.drafts().size(); i++) {
                if (!c.items().get(i).replayed()) {
                    tallies.add(
                            Tallies.Kind.ACCEPTED, submission.drafts().get(i).gateway(), submission.tenant(), 1);
                }
            }
        }
    }

    /** Writes the submissions together; on an unexpected failure of several, retries each alone. */
    public void write(List<Submission> submissions) {
        for (int attempt = 1; ; attempt++) {
            try {
                Map<Submission, SubmissionOutcome> outcomes =
                        dsl.transactionResult(cfg -> writeInTransaction(cfg.dsl(), submissions));
                outcomes.forEach((s, o) -> s.outcome().complete(o));
                outcomes.forEach(this::tally);
                return;
            } catch (RuntimeException e) {
                if (SqlFailures.isRetryable(e) && attempt < MAX_RETRIES) {
                    continue;
                }
                if (SqlFailures.isUnavailable(e)) {
                    String reason = SqlFailures.isMissingPartition(e)
                            ? "no partition exists for today's messages"
                            : "the database is unreachable";
                    LOG.warn(
                            "accept unavailable submissions={} reason=\"{}\" error=\"{}\"",
                            submissions.size(),
                            reason,
                            e.toString());
                    submissions.forEach(s -> s.outcome().complete(new SubmissionOutcome.Unavailable(reason)));
                    return;
                }
                if (submissions.size() > 1) {
                    LOG.warn(
                            "accept batch failed, retrying each submission alone submissions={}",
                            submissions.size(),
                            e);
                    submissions.forEach(s -> write(List.of(s)));
                    return;
                }
                LOG.error(
                        "accept failed tenant={} messages={}",
                        submissions.getFirst().tenant(),
                        submissions.getFirst().size(),
                        e);
                submissions.forEach(s -> s.outcome().complete(new SubmissionOutcome.Failed(e.toString(), e)));
                return;
            }
        }
    }

    private Map<Submission, SubmissionOutcome> writeInTransaction(DSLContext tx, List<Submission> submissions) {
        // PostgreSQL keeps microseconds: answer with exactly what is stored.
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        // Keyed by identity: a Submission is a record over all its drafts, so hashing one hashes every draft.
        Map<Submission, List<UUID>> newIds = new IdentityHashMap<>();
        Map<KeyRef, Keyed> keyed = new HashMap<>();
        for (Submission s : submissions) {
            List<UUID> assigned = new ArrayList<>(s.size());
            for (MessageDraft d : s.drafts()) {
                UUID id = ids.next();
                assigned.add(id);
                if (d.idempotencyKey() != null) {
                    keyed.put(new KeyRef(s.tenant(), d.idempotencyKey()), new Keyed(s, id, d.requestHash()));
                }
            }
            newIds.put(s, assigned);
        }

        Map<KeyRef, Existing> existing = claimKeys(tx, keyed, now);

        Map<Submission, SubmissionOutcome> outcomes = new IdentityHashMap<>();
        List<NewMessage> messages = new ArrayList<>();
        List<KeyRef> releasedKeys = new ArrayList<>();
        for (Submission s : submissions) {
            List<FieldError> conflicts = new ArrayList<>();
            List<AcceptedItem> items = new ArrayList<>(s.size());
            List<UUID> assigned = newIds.get(s);
            for (int i = 0; i < s.size(); i++) {
                MessageDraft d = s.drafts().get(i);
                UUID id = assigned.get(i);
                Existing prior =
                        d.idempotencyKey() == null ? null : existing.get(new KeyRef(s.tenant(), d.idempotencyKey()));
                if (prior == null) {
                    items.add(new AcceptedItem(id, now, false));
                } else if (Arrays.equals(prior.requestHash(), d.requestHash())) {
                    items.add(new AcceptedItem(prior.messageId(), prior.acceptedAt(), true));
                } else {
                    conflicts.add(new FieldError(
                            s.batch() ? "messages[" + i + "].idempotencyKey" : "Idempotency-Key",
                            "was used before with a different request (message " + prior.messageId() + ")"));
                }
            }
            if (!conflicts.isEmpty()) {
                outcomes.put(s, new SubmissionOutcome.KeyConflict(conflicts));
                for (MessageDraft d : s.drafts()) {
                    KeyRef ref = new KeyRef(s.tenant(), d.idempotencyKey());
                    if (d.idempotencyKey() != null && !existing.containsKey(ref)) {
                        releasedKeys.add(ref);
                    }
                }
                continue;
            }
            for (int i = 0; i < s.size(); i++) {
                AcceptedItem item = items.get(i);
                if (item.replayed()) {
                    continue;
                }
                MessageDraft d = s.drafts().get(i);
                messages.add(
                        new NewMessage(item.id(), s.tenant(), lanes.shardOf(item.id(), d.priority(), s.tenant()), d));
            }
            outcomes.put(s, new SubmissionOutcome.Committed(items));
        }
        releaseKeys(tx, releasedKeys, keyed);
        if (!messages.isEmpty()) {
            insertMessages(tx, messages, now);
            if (messages.stream().anyMatch(m -> lanes.priorityOf(m.shard()) == Priority.HIGH)) {
                // Wakes the high lane's pollers at commit (dispatch.HighWorkSignal); one per transaction, whatever it
                // holds.
                tx.execute("NOTIFY " + LaneLayout.HIGH_WORK_CHANNEL);
            }
        }
        return outcomes;
    }

    /**
     * Inserts the new keys; a key that exists and has not expired is left alone and returned with the message
     * it belongs to. Waits for a concurrent transaction holding the same key, so of two racing requests exactly
     * one message is written and both learn its id.
     */
    private Map<KeyRef, Existing> claimKeys(DSLContext tx, Map<KeyRef, Keyed> keyed, Instant now) {
        Map<KeyRef, Existing> existing = new HashMap<>();
        if (keyed.isEmpty()) {
            return existing;
        }
        InsertValuesStep5<?, String, String, UUID, byte[], Instant> insert = tx.insertInto(
                IDEMPOTENCY_KEYS,
                IDEMPOTENCY_KEYS.TENANT,
                IDEMPOTENCY_KEYS.CLIENT_KEY,
                IDEMPOTENCY_KEYS.MESSAGE_ID,
                IDEMPOTENCY_KEYS.REQUEST_HASH,
                IDEMPOTENCY_KEYS.EXPIRES_AT);
        List<Map.Entry<KeyRef, Keyed>> sorted = new ArrayList<>(keyed.entrySet());
        sorted.sort(Map.Entry.comparingByKey());
        for (Map.Entry<KeyRef, Keyed> e : sorted) {
            insert = insert.values(
                    e.getKey().tenant(),
                    e.getKey().key(),
                    e.getValue().messageId(),
                    e.getValue().requestHash(),
                    now.plus(idempotencyTtl));
        }
        Set<KeyRef> claimed = new HashSet<>();
        for (Record2<String, String> r : insert.onConflict(IDEMPOTENCY_KEYS.TENANT, IDEMPOTENCY_KEYS.CLIENT_KEY)
                .doUpdate()
                .set(IDEMPOTENCY_KEYS.MESSAGE_ID, DSL.excluded(IDEMPOTENCY_KEYS.MESSAGE_ID))
                .set(IDEMPOTENCY_KEYS.REQUEST_HASH, DSL.excluded(IDEMPOTENCY_KEYS.REQUEST_HASH))
                .set(IDEMPOTENCY_KEYS.EXPIRES_AT, DSL.excluded(IDEMPOTENCY_KEYS.EXPIRES_AT))
                .where(IDEMPOTENCY_KEYS.EXPIRES_AT.le(now))
                .returningResult(IDEMPOTENCY_KEYS.TENANT, IDEMPOTENCY_KEYS.CLIENT_KEY)
                .fetch()) {
            claimed.add(new KeyRef(r.value1(), r.value2()));
        }
        List<Row2<String, String>> taken = new ArrayList<>();
        for (KeyRef ref : keyed.keySet()) {
            if (!claimed.contains(ref)) {
                taken.add(DSL.row(ref.tenant(), ref.key()));
            }
        }
        if (taken.isEmpty()) {
            return existing;
        }
        for (Record5<String, String, UUID, byte[], Instant> r : tx.select(
                        IDEMPOTENCY_KEYS.TENANT,
                        IDEMPOTENCY_KEYS.CLIENT_KEY,
                        IDEMPOTENCY_KEYS.MESSAGE_ID,
                        IDEMPOTENCY_KEYS.REQUEST_HASH,
                        MESSAGES.ACCEPTED_AT)
                .from(IDEMPOTENCY_KEYS)
                .leftJoin(MESSAGES)
                .on(MESSAGES.ID.eq(IDEMPOTENCY_KEYS.MESSAGE_ID))
                .where(DSL.row(IDEMPOTENCY_KEYS.TENANT, IDEMPOTENCY_KEYS.CLIENT_KEY)
                        .in(taken))
                .fetch()) {
            UUID messageId = r.value3();
            Instant acceptedAt = r.value5() != null ? r.value5() : MessageIds.instantOf(messageId);
            existing.put(new KeyRef(r.value1(), r.value2()), new Existing(messageId, r.value4(), acceptedAt));
        }
        if (existing.size() != taken.size()) {
            // A key vanished between the conflict and the read (it expired and was purged): run the work again.
            throw new org.jooq.exception.DataAccessException(
                    "idempotency key vanished", new java.sql.SQLException("idempotency key vanished; retry", "40001"));
        }
        return existing;
    }

    private void releaseKeys(DSLContext tx, List<KeyRef> released, Map<KeyRef, Keyed> keyed) {
        if (released.isEmpty()) {
            return;
        }
        List<Row2<String, String>> rows =
                released.stream().map(r -> DSL.row(r.tenant(), r.key())).toList();
        List<UUID> ours = released.stream().map(r -> keyed.get(r).messageId()).toList();
        tx.deleteFrom(IDEMPOTENCY_KEYS)
                .where(DSL.row(IDEMPOTENCY_KEYS.TENANT, IDEMPOTENCY_KEYS.CLIENT_KEY)
                        .in(rows))
                .and(IDEMPOTENCY_KEYS.MESSAGE_ID.in(ours))
                .execute();
    }

    /**
     * The message rows, and in the same statement the status webhook deliveries their acceptance owes (V16): the row is
     * the ACCEPTED event (SCHEDULED for a message with a later sendAt), seq 1, and a tenant whose registration asks
     * for that status is owed a delivery of it, committed with the message or not at all.
     */
    private static final String INSERT_MESSAGES_SQL = """
            WITH t AS MATERIALIZED (
                SELECT * FROM unnest(?::uuid[], ?::text[], ?::int2[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],
                                     ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::bool[])
                     AS t(id, tenant, shard, reference, ikey, recipient, body, gateway, metadata, sender, valid_until, send_at,
                          status, routed)),
            owed AS (INSERT INTO webhook_deliveries (message_id, seq, tenant, status, event_at, owed_since, due_at)
                     SELECT t.id, 1, t.tenant, t.status, ?::timestamptz, ?::timestamptz, ?::timestamptz
                     FROM t JOIN webhooks w ON w.tenant = t.tenant AND t.status = ANY (w.events))
            INSERT INTO messages (id, tenant, shard, reference, idempotency_key, recipient, body, gateway, metadata, accepted_at,
                                  sender, valid_until, send_at, routed)
            SELECT id, tenant, shard, reference, ikey, recipient, body, gateway, metadata::jsonb, ?::timestamptz, sender,
                   valid_until::timestamptz, send_at::timestamptz, routed
            FROM t""";

    /**
     * The due scan's rows of the scheduled messages among them (issue 26), in the same transaction as their rows: a
     * scheduled message is never committed without the row that brings it to the send stream at its time. Due at the
     * earlier of its sendAt and its validity's end (it expires then, unsent).
     */
    private static final String INSERT_SCHEDULED_SQL = """
            INSERT INTO scheduled (due_at, message_id)
            SELECT d::timestamptz, m FROM unnest(?::text[], ?::uuid[]) AS t(d, m)""";

    /** All message rows of the transaction in one statement (arrays unnested server-side). */
    private static void insertMessages(DSLContext tx, List<NewMessage> messages, Instant acceptedAt) {
        int n = messages.size();
        UUID[] ids = new UUID[n];
        String[] tenants = new String[n];
        Short[] shards = new Short[n];
        String[] references = new String[n];
        String[] keys = new String[n];
        String[] recipients = new String[n];
        String[] bodies = new String[n];
        String[] gateways = new String[n];
        String[] metadata = new String[n];
        String[] senders = new String[n];
        String[] validUntil = new String[n];
        String[] sendAt = new String[n];
        String[] statuses = new String[n];
        Boolean[] routed = new Boolean[n];
        List<String> dueAt = new ArrayList<>();
        List<UUID> scheduled = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            NewMessage m = messages.get(i);
            ids[i] = m.id();
            tenants[i] = m.tenant();
            shards[i] = m.shard();
            references[i] = m.draft().reference();
            keys[i] = m.draft().idempotencyKey();
            recipients[i] = m.draft().to();
            bodies[i] = m.draft().body();
            gateways[i] = m.draft().gateway();
            routed[i] = m.draft().routed() ? Boolean.TRUE : null;
            metadata[i] = m.draft().metadataJson();
            senders[i] = m.draft().from();
            validUntil[i] = m.draft().validUntil() == null
                    ? null
                    : m.draft().validUntil().toString();
            Instant at = m.draft().sendAt();
            sendAt[i] = at == null ? null : at.toString();
            boolean isScheduled = Histories.isScheduled(at, acceptedAt);
            statuses[i] = isScheduled ? "SCHEDULED" : "ACCEPTED";
            if (isScheduled) {
                Instant valid = m.draft().validUntil();
                dueAt.add((valid != null && valid.isBefore(at) ? valid : at).toString());
                scheduled.add(m.id());
            }
        }
        tx.connection(c -> {
            try (PreparedStatement ps = c.prepareStatement(INSERT_MESSAGES_SQL)) {
                ps.setArray(1, c.createArrayOf("uuid", ids));
                ps.setArray(2, c.createArrayOf("text", tenants));
                ps.setArray(3, c.createArrayOf("int2", shards));
                ps.setArray(4, c.createArrayOf("text", references));
                ps.setArray(5, c.createArrayOf("text", keys));
                ps.setArray(6, c.createArrayOf("text", recipients));
                ps.setArray(7, c.createArrayOf("text", bodies));
                ps.setArray(8, c.createArrayOf("text", gateways));
                ps.setArray(9, c.createArrayOf("text", metadata));
                ps.setArray(10, c.createArrayOf("text", senders));
                ps.setArray(11, c.createArrayOf("text", validUntil));
                ps.setArray(12, c.createArrayOf("text", sendAt));
                ps.setArray(13, c.createArrayOf("text", statuses));
                ps.setArray(14, c.createArrayOf("bool", routed));
                ps.setString(15, acceptedAt.toString());
                ps.setString(16, acceptedAt.toString());
                ps.setString(17, acceptedAt.toString());
                ps.setString(18, acceptedAt.toString());
                int inserted = ps.executeUpdate();
                if (inserted != n) {
                    throw new IllegalStateException("inserted " + inserted + " of " + n + " messages");
                }
            }
            if (!scheduled.isEmpty()) {
                try (PreparedStatement ps = c.prepareStatement(INSERT_SCHEDULED_SQL)) {
                    ps.setArray(1, c.createArrayOf("text", dueAt.toArray(String[]::new)));
                    ps.setArray(2, c.createArrayOf("uuid", scheduled.toArray(UUID[]::new)));
                    ps.executeUpdate();
                }
            }
        });
    }

    private record NewMessage(UUID id, String tenant, short shard, MessageDraft draft) {}

    private record KeyRef(String tenant, String key) implements Comparable<KeyRef> {
        @Override
        public int compareTo(KeyRef o) {
            int c = tenant.compareTo(o.tenant);
            return c != 0 ? c : key.compareTo(o.key);
        }
    }

    private record Keyed(Submission submission, UUID messageId, byte[] requestHash) {}

    private record Existing(UUID messageId, byte[] requestHash, Instant acceptedAt) {}
}
