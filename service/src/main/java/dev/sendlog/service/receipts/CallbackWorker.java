package dev.sendlog.service.receipts;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import dev.sendlog.events.Receipt;
import dev.sendlog.events.ReceiptKind;
import dev.sendlog.events.StoredEvent;
import dev.sendlog.projections.Decisions;
import dev.sendlog.projections.MessageFold;
import dev.sendlog.projections.MessageState;
import dev.sendlog.projections.Phase;
import dev.sendlog.service.log.MessageDetails;
import dev.sendlog.service.log.MessageReader;
import dev.sendlog.service.log.MessageRow;
import dev.sendlog.service.log.NewEvent;
import dev.sendlog.service.logging.LogText;
import dev.sendlog.service.metrics.Metrics;
import dev.sendlog.service.queue.StreamConsumer;
import dev.sendlog.service.queue.StreamEntry;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns stored callbacks into history. Every inbox row ends in exactly one recorded outcome: a RECEIPT event
 * appended, a parked row (not JSON, a missing field, an unmapped status, an unparseable timestamp, no message
 * matched), or a duplicate that changed nothing. Never a silent acknowledgement, never the current time in
 * place of a bad timestamp. A receipt for a message whose acceptance is not recorded yet is held: it gets no
 * outcome now, and the sweeper brings it back until the hold window ends, then it is parked as unmatched.
 *
 * <p>The callbacks of one read are decided together, {@code batchSize} at a time, in a fixed number of round trips
 * whatever the batch's size: one query for the inbox rows (and whether each already has an outcome), one for the
 * provider ids' latest uses, one for the messages and their histories, then one group commit per round. A round
 * decides at most one callback per message, in arrival order, against the state the rounds before it left, so
 * eleven receipts for one message in one batch are decided exactly as if they had come one at a time.
 */
public final class CallbackWorker {
    private static final Logger LOG = LoggerFactory.getLogger(CallbackWorker.class);
    private static final int MAX_DECISIONS = 5;
    private static final String ROWS_SQL = """
            SELECT i.id, i.gateway, i.received_at, i.body,
                   EXISTS (SELECT 1 FROM callback_outcomes o WHERE o.inbox_id = i.id)
            FROM callback_inbox i
            WHERE i.id = ANY(?)""";

    private final StreamConsumer consumer;
    private final DSLContext dsl;
    private final MessageReader reader;
    private final ReceiptMatcher matcher;
    private final CallbackRecorder recorder;
    private final Map<String, Vocabulary> vocabularies;
    private final Duration holdWindow;
    private final int batchSize;
    private final InstantSource clock;
    private final String actor;
    private final MetricRegistry metrics;
    private final Timer batchTimer;
    private final Histogram batchSizes;
    private final Histogram batchRounds;
    private final Counter appended;
    private final Counter duplicates;
    private final Counter held;

    public CallbackWorker(
            StreamConsumer consumer,
            DSLContext dsl,
            MessageReader reader,
            ReceiptMatcher matcher,
            CallbackRecorder recorder,
            Map<String, Vocabulary> vocabularies,
            Duration holdWindow,
            int batchSize,
            InstantSource clock,
            String actor,
            MetricRegistry metrics) {
        if (batchSize < 1) {
            throw new IllegalArgumentException("batchSize must be at least 1");
        }
        this.consumer = consumer;
        this.dsl = dsl;
        this.reader = reader;
        this.matcher = matcher;
        this.recorder = recorder;
        this.vocabularies = Map.copyOf(vocabularies);
        this.holdWindow = holdWindow;
        this.batchSize = batchSize;
        this.clock = clock;
        this.actor = actor;
        this.metrics = metrics;
        this.batchTimer = Metrics.timer(metrics, "callbacks.batch");
        this.batchSizes = metrics.histogram("callbacks.batch.size");
        this.batchRounds = metrics.histogram("callbacks.batch.rounds");
        this.appended = metrics.counter("callbacks.appended");
        this.duplicates = metrics.counter("callbacks.duplicates");
        this.held = metrics.counter("callbacks.held.for.late.match");
        consumer.onEntries(this::dispatch);
    }

    private void dispatch(List<StreamEntry> entries) {
        List<StreamEntry> bad = new ArrayList<>();
        List<StreamEntry> jobs = new ArrayList<>(entries.size());
        for (StreamEntry entry : entries) {
            try {
                CallbackJob.fromFields(entry.fields());
                jobs.add(entry);
            } catch (IllegalArgumentException e) {
                LOG.error(
                        "dropping a stream entry that is not a callback job entry_id={} fields={}",
                        entry.id(),
                        entry.fields());
                bad.add(entry);
            }
        }
        consumer.finished(bad);
        for (int from = 0; from < jobs.size(); from += batchSize) {
            consumer.dispatchBatch(jobs.subList(from, Math.min(jobs.size(), from + batchSize)), this::processEntries);
        }
    }

    /** The entries whose inbox rows are done for now (an outcome recorded, or held for the sweeper). */
    private Collection<StreamEntry> processEntries(List<StreamEntry> entries) {
        Map<Long, List<StreamEntry>> byInbox = new TreeMap<>();
        for (StreamEntry entry : entries) {
            byInbox.computeIfAbsent(CallbackJob.fromFields(entry.fields()).inboxId(), id -> new ArrayList<>())
                    .add(entry);
        }
        Set<Long> done = process(byInbox.keySet());
        List<StreamEntry> finished = new ArrayList<>(entries.size());
        byInbox.forEach((id, forRow) -> {
            if (done.contains(id)) {
                finished.addAll(forRow);
            }
        });
        return finished;
    }

    /** Processes inbox rows (in id order, which is arrival order); returns the ids that are done for now. */
    Set<Long> process(Collection<Long> inboxIds) {
        Set<Long> done = new HashSet<>();
        batchSizes.update(inboxIds.size());
        try (Timer.Context ignored = batchTimer.time()) {
            new Batch(done).run(inboxIds);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            throw new IllegalStateException(
                    "processing " + inboxIds.size() + " callbacks failed (inbox ids " + inboxIds + ")", e);
        }
        return done;
    }

    /** A stored callback on its way to an outcome. */
    private static final class Pending {
        final long inboxId;
        final String gateway;
        final Instant receivedAt;
        final ParsedCallback callback;
        final ReceiptMatcher.Match match;
        int attempts;

        Pending(long inboxId, String gateway, Instant receivedAt, ParsedCallback callback, ReceiptMatcher.Match match) {
            this.inboxId = inboxId;
            this.gateway = gateway;
            this.receivedAt = receivedAt;
            this.callback = callback;
            this.match = match;
        }
    }

    private record Row(long inboxId, String gateway, Instant receivedAt, byte[] body) {}

    /** One batch's working state: the messages as the decisions so far have left them. */
    private final class Batch {
        private final Set<Long> done;
        private final Map<UUID, MessageRow> rows = new HashMap<>();
        private final Map<UUID, MessageState> states = new HashMap<>();
        private final Map<UUID, ArrayDeque<Pending>> queues = new LinkedHashMap<>();
        private final List<CallbackDecision> firstRound = new ArrayList<>();

        Batch(Set<Long> done) {
            this.done = done;
        }

        void run(Collection<Long> inboxIds) throws Exception {
            List<Row> stored = load(inboxIds);
            List<ParsedRow> parsed = new ArrayList<>(stored.size());
            Set<ReceiptMatcher.ProviderKey> keys = new HashSet<>();
            for (Row row : stored) {
                Vocabulary vocabulary = vocabularies.get(row.gateway());
                if (vocabulary == null) {
                    firstRound.add(new CallbackDecision.Park(
                            row.inboxId(),
                            row.gateway(),
                            ParkReason.of(
                                    ParkReason.Kind.UNKNOWN_GATEWAY, "gateway " + row.gateway() + " is not configured"),
                            null));
                    continue;
                }
                CallbackParser.Result result = CallbackParser.parse(row.body(), vocabulary);
                parsed.add(new ParsedRow(row, result));
                if (ReceiptMatcher.byReference(result.reference()).isEmpty() && result.providerId() != null) {
                    keys.add(new ReceiptMatcher.ProviderKey(row.gateway(), result.providerId()));
                }
            }
            Map<ReceiptMatcher.ProviderKey, UUID> latest = matcher.latestUses(keys);
            Map<ParsedRow, Optional<ReceiptMatcher.Match>> matches = new HashMap<>();
            for (ParsedRow p : parsed) {
                Optional<ReceiptMatcher.Match> match =
                        ReceiptMatcher.byReference(p.result().reference());
                if (match.isEmpty() && p.result().providerId() != null) {
                    match = Optional.ofNullable(latest.get(new ReceiptMatcher.ProviderKey(
                                    p.row().gateway(), p.result().providerId())))
                            .map(id -> new ReceiptMatcher.Match(id, false));
                }
                matches.put(p, match);
            }
            remember(reader.findMany(matches.values().stream()
                    .flatMap(Optional::stream)
                    .map(ReceiptMatcher.Match::messageId)
                    .distinct()
                    .toList()));
            for (ParsedRow p : parsed) {
                Row row = p.row();
                Optional<UUID> messageId =
                        matches.get(p).map(ReceiptMatcher.Match::messageId).filter(rows::containsKey);
                if (p.result().parkReason() != null) {
                    firstRound.add(new CallbackDecision.Park(
                            row.inboxId(), row.gateway(), p.result().parkReason(), messageId.orElse(null)));
                } else if (messageId.isEmpty()) {
                    ParsedCallback cb = p.result().callback();
                    holdOrPark(
                                    row.inboxId(),
                                    row.gateway(),
                                    row.receivedAt(),
                                    ParkReason.Kind.UNMATCHED,
                                    "no message matches provider id " + cb.providerId()
                                            + (cb.reference() == null ? "" : " / reference " + cb.reference()),
                                    null)
                            .ifPresent(firstRound::add);
                } else {
                    queues.computeIfAbsent(messageId.get(), id -> new ArrayDeque<>())
                            .add(new Pending(
                                    row.inboxId(),
                                    row.gateway(),
                                    row.receivedAt(),
                                    p.result().callback(),
                                    matches.get(p).get()));
                }
            }
            rounds();
        }

        private record ParsedRow(Row row, CallbackParser.Result result) {}

        private List<Row> load(Collection<Long> inboxIds) {
            List<Row> pending = new ArrayList<>(inboxIds.size());
            Set<Long> seen = new HashSet<>();
            Long[] ids = inboxIds.toArray(Long[]::new);
            dsl.connection(c -> {
                try (PreparedStatement ps = c.prepareStatement(ROWS_SQL)) {
                    ps.setArray(1, c.createArrayOf("int8", ids));
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            long id = rs.getLong(1);
                            seen.add(id);
                            if (rs.getBoolean(5)) {
                                done.add(id);
                            } else {
                                pending.add(new Row(
                                        id,
                                        rs.getString(2),
                                        rs.getObject(3, OffsetDateTime.class).toInstant(),
                                        rs.getBytes(4)));
                            }
                        }
                    }
                }
            });
            for (Long id : inboxIds) {
                if (!seen.contains(id)) {
                    LOG.error("callback job for an inbox row that does not exist inbox_id={}", id);
                    done.add(id);
                }
            }
            pending.sort((a, b) -> Long.compare(a.inboxId(), b.inboxId()));
            return pending;
        }

        private void remember(Map<UUID, MessageDetails> found) {
            found.forEach((id, details) -> {
                rows.put(id, details.row());
                states.put(id, details.state());
            });
        }

        /** Decides the head of every message's queue, records the round, and goes on until every queue is empty. */
        private void rounds() throws Exception {
            List<Step> round = new ArrayList<>();
            firstRound.forEach(d -> round.add(new Step(d, null, null)));
            int rounds = 0;
            while (true) {
                for (Map.Entry<UUID, ArrayDeque<Pending>> q : queues.entrySet()) {
                    while (!q.getValue().isEmpty()) {
                        Pending head = q.getValue().peek();
                        Optional<CallbackDecision> decision = decide(head, q.getKey());
                        if (decision.isPresent()) {
                            round.add(new Step(decision.get(), q.getKey(), head));
                            break;
                        }
                        q.getValue().poll(); // held for the sweeper; the next one for this message may still be decided
                    }
                }
                if (round.isEmpty()) {
                    batchRounds.update(rounds);
                    return;
                }
                rounds++;
                List<Boolean> results =
                        recorder.recordAll(round.stream().map(Step::decision).toList());
                Set<UUID> stale = new HashSet<>();
                for (int i = 0; i < round.size(); i++) {
                    Step step = round.get(i);
                    if (settle(step, results.get(i))) {
                        done.add(step.decision().inboxId());
                        if (step.messageId() != null) {
                            queues.get(step.messageId()).poll();
                        }
                    } else {
                        stale.add(step.messageId());
                    }
                }
                if (!stale.isEmpty()) {
                    remember(reader.findMany(stale));
                }
                queues.values().removeIf(ArrayDeque::isEmpty);
                round.clear();
            }
        }

        /** The decision for a matched callback, against its message as the batch has left it; empty when held. */
        private Optional<CallbackDecision> decide(Pending p, UUID messageId) {
            MessageRow row = rows.get(messageId);
            MessageState state = states.get(messageId);
            ParsedCallback cb = p.callback;
            Receipt receipt = new Receipt(
                    cb.kind(), p.gateway, cb.providerId(), cb.status(), cb.timestamp(), cb.errorCode(), p.inboxId);
            // The decider says what to do (Decisions.callbackReceipt); this says why, in the parked row's words.
            return switch (Decisions.callbackReceipt(state, receipt, p.match.byReference())) {
                case WRONG_GATEWAY ->
                    // The gateway it went out through is its state's, which a failover may have moved from the row's.
                    Optional.of(new CallbackDecision.Park(
                            p.inboxId,
                            p.gateway,
                            ParkReason.of(
                                    ParkReason.Kind.WRONG_GATEWAY,
                                    "message " + messageId + " went through gateway " + state.gateway() + ", not "
                                            + p.gateway),
                            messageId));
                case ID_MISMATCH ->
                    Optional.of(new CallbackDecision.Park(
                            p.inboxId,
                            p.gateway,
                            ParkReason.of(
                                    ParkReason.Kind.ID_MISMATCH,
                                    "provider id " + cb.providerId() + " is not the id " + state.providerId()
                                            + " of message " + messageId),
                            messageId));
                case AMBIGUOUS ->
                    holdOrPark(
                            p.inboxId,
                            p.gateway,
                            p.receivedAt,
                            ParkReason.Kind.AMBIGUOUS,
                            "provider id " + cb.providerId() + " was last used by message " + messageId
                                    + ", which is already final",
                            messageId);
                case HOLD ->
                    holdOrPark(
                            p.inboxId,
                            p.gateway,
                            p.receivedAt,
                            ParkReason.Kind.UNMATCHED,
                            "message " + messageId + " has no provider acceptance recorded",
                            messageId);
                case DUPLICATE -> Optional.of(new CallbackDecision.Duplicate(p.inboxId, messageId));
                case APPEND ->
                    Optional.of(new CallbackDecision.AppendReceipt(
                            p.inboxId,
                            new NewEvent(messageId, state.nextSeq(), row.shard(), actor, clock.instant(), receipt)
                                    .deciding(state, row.tenant())));
            };
        }

        /** A park once the hold window has passed; before that, held: no outcome now, and the sweeper brings it back. */
        private Optional<CallbackDecision> holdOrPark(
                long inboxId, String gateway, Instant receivedAt, ParkReason.Kind kind, String reason, UUID messageId) {
            if (receivedAt.plus(holdWindow).isAfter(clock.instant())) {
                held.inc();
                done.add(inboxId);
                return Optional.empty();
            }
            return Optional.of(new CallbackDecision.Park(
                    inboxId,
                    gateway,
                    ParkReason.of(kind, reason + " within " + holdWindow.toSeconds() + " s"),
                    messageId));
        }

        /** Counts and logs a recorded decision; false for an append that lost its seq and may be decided again. */
        private boolean settle(Step step, boolean recorded) {
            switch (step.decision()) {
                case CallbackDecision.Park park -> {
                    metrics.counter("callbacks.parked." + park.reason().kind().metricName())
                            .inc();
                    LOG.warn(
                            "callback parked inbox_id={} gateway={} message_id={} reason=\"{}\"",
                            park.inboxId(),
                            park.gateway(),
                            park.messageId(),
                            LogText.escape(park.reason().text()));
                    return true;
                }
                case CallbackDecision.Duplicate ignored -> {
                    duplicates.inc();
                    return true;
                }
                case CallbackDecision.AppendReceipt append -> {
                    NewEvent event = append.event();
                    if (recorded) {
                        appended.inc();
                        MessageState before = states.get(event.messageId());
                        boolean wasFinal = before.phase() == Phase.DELIVERED || before.phase() == Phase.UNDELIVERED;
                        ReceiptKind kind = step.pending().callback.kind();
                        if (!wasFinal && kind.isFinal()) {
                            metrics.counter(
                                            kind == ReceiptKind.DELIVERED
                                                    ? "messages.delivered"
                                                    : "messages.undelivered")
                                    .inc();
                            // Beside the reconciler's count of finals learned by query: the share per gateway (issue
                            // 32).
                            FinalsLearned.counter(metrics, step.pending().gateway, "callback")
                                    .inc();
                        }
                        states.put(
                                event.messageId(),
                                MessageFold.evolve(
                                        before,
                                        new StoredEvent(
                                                event.messageId(),
                                                event.seq(),
                                                event.at(),
                                                event.actor(),
                                                event.event())));
                        return true;
                    }
                    if (++step.pending().attempts >= MAX_DECISIONS) {
                        LOG.warn(
                                "callback inbox_id={} lost {} races in a row; left for the sweeper",
                                append.inboxId(),
                                MAX_DECISIONS);
                        return true;
                    }
                    return false;
                }
            }
        }
    }

    /** One decision of a round; {@code messageId} and {@code pending} are set when it came from a message's queue. */
    private record Step(CallbackDecision decision, UUID messageId, Pending pending) {}
}
