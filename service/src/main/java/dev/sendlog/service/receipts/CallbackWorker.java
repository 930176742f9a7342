package dev.sendlog.service.receipts;

import static dev.sendlog.schema.jooq.Tables.CALLBACK_INBOX;
import static dev.sendlog.schema.jooq.Tables.CALLBACK_OUTCOMES;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import dev.sendlog.events.Receipt;
import dev.sendlog.events.Shards;
import dev.sendlog.projections.Decisions;
import dev.sendlog.projections.ReceiptDecision;
import dev.sendlog.schema.jooq.tables.records.CallbackInboxRecord;
import dev.sendlog.service.core.MessageDetails;
import dev.sendlog.service.core.MessageReader;
import dev.sendlog.service.core.Metrics;
import dev.sendlog.service.db.NewEvent;
import dev.sendlog.service.queue.StreamConsumer;
import dev.sendlog.service.queue.StreamEntry;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 */
public final class CallbackWorker {
    private static final Logger LOG = LoggerFactory.getLogger(CallbackWorker.class);
    private static final int MAX_DECISIONS = 5;

    private final StreamConsumer consumer;
    private final DSLContext dsl;
    private final MessageReader reader;
    private final ReceiptMatcher matcher;
    private final CallbackRecorder recorder;
    private final Map<String, Vocabulary> vocabularies;
    private final Duration holdWindow;
    private final int shardCount;
    private final InstantSource clock;
    private final String actor;
    private final MetricRegistry metrics;
    private final Timer processTimer;
    private final Counter appended;
    private final Counter duplicates;
    private final Counter held;

    public CallbackWorker(StreamConsumer consumer, DSLContext dsl, MessageReader reader, ReceiptMatcher matcher,
                          CallbackRecorder recorder, Map<String, Vocabulary> vocabularies, Duration holdWindow, int shardCount,
                          InstantSource clock, String actor, MetricRegistry metrics) {
        this.consumer = consumer;
        this.dsl = dsl;
        this.reader = reader;
        this.matcher = matcher;
        this.recorder = recorder;
        this.vocabularies = Map.copyOf(vocabularies);
        this.holdWindow = holdWindow;
        this.shardCount = shardCount;
        this.clock = clock;
        this.actor = actor;
        this.metrics = metrics;
        this.processTimer = Metrics.timer(metrics, "callbacks.process");
        this.appended = metrics.counter("callbacks.appended");
        this.duplicates = metrics.counter("callbacks.duplicates");
        this.held = metrics.counter("callbacks.held.for.late.match");
        consumer.onEntries(this::dispatch);
    }

    private void dispatch(List<StreamEntry> entries) {
        List<StreamEntry> bad = new ArrayList<>();
        for (StreamEntry entry : entries) {
            CallbackJob job;
            try {
                job = CallbackJob.fromFields(entry.fields());
            } catch (IllegalArgumentException e) {
                LOG.error("dropping a stream entry that is not a callback job entry_id={} fields={}", entry.id(), entry.fields());
                bad.add(entry);
                continue;
            }
            consumer.dispatch(entry, () -> process(job.inboxId()));
        }
        consumer.finished(bad);
    }

    /** Processes one inbox row; true when it is done for now (an outcome recorded, or held for the sweeper). */
    boolean process(long inboxId) {
        try (Timer.Context ignored = processTimer.time()) {
            CallbackInboxRecord row = dsl.selectFrom(CALLBACK_INBOX).where(CALLBACK_INBOX.ID.eq(inboxId)).fetchOne();
            if (row == null) {
                LOG.error("callback job for an inbox row that does not exist inbox_id={}", inboxId);
                return true;
            }
            if (dsl.fetchExists(CALLBACK_OUTCOMES, CALLBACK_OUTCOMES.INBOX_ID.eq(inboxId))) {
                return true;
            }
            Vocabulary vocabulary = vocabularies.get(row.getGateway());
            if (vocabulary == null) {
                return park(inboxId, row.getGateway(), "unknown-gateway", "gateway " + row.getGateway() + " is not configured", null);
            }
            CallbackParser.Result parsed = CallbackParser.parse(row.getBody(), vocabulary);
            if (parsed.parkReason() != null) {
                UUID about = matcher.match(row.getGateway(), parsed.providerId(), parsed.reference())
                        .map(ReceiptMatcher.Match::messageId).filter(id -> reader.find(id).isPresent()).orElse(null);
                return park(inboxId, row.getGateway(), kindOf(parsed.parkReason()), parsed.parkReason(), about);
            }
            return apply(inboxId, row.getGateway(), row.getReceivedAt(), parsed.callback());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (Exception e) {
            throw new IllegalStateException("processing callback inbox_id=" + inboxId + " failed", e);
        }
    }

    private boolean apply(long inboxId, String gateway, Instant receivedAt, ParsedCallback cb) throws Exception {
        for (int i = 0; i < MAX_DECISIONS; i++) {
            Optional<ReceiptMatcher.Match> match = matcher.match(gateway, cb.providerId(), cb.reference());
            Optional<MessageDetails> message = match.map(ReceiptMatcher.Match::messageId).flatMap(reader::find);
            if (message.isEmpty()) {
                return holdOrPark(inboxId, gateway, receivedAt, "unmatched",
                        "no message matches provider id " + cb.providerId() + (cb.reference() == null ? "" : " / reference " + cb.reference()),
                        null);
            }
            MessageDetails m = message.get();
            if (!m.row().gateway().equals(gateway)) {
                return park(inboxId, gateway, "wrong-gateway", "message " + m.row().id() + " went through gateway "
                        + m.row().gateway() + ", not " + gateway, m.row().id());
            }
            if (m.state().providerId() != null && !m.state().providerId().equals(cb.providerId())) {
                return park(inboxId, gateway, "id-mismatch", "provider id " + cb.providerId() + " is not the id "
                        + m.state().providerId() + " of message " + m.row().id(), m.row().id());
            }
            Receipt receipt = new Receipt(cb.kind(), gateway, cb.providerId(), cb.status(), cb.timestamp(), cb.errorCode(), inboxId);
            ReceiptDecision decision = Decisions.receipt(m.state(), receipt);
            if (decision == ReceiptDecision.APPEND && !match.get().byReference() && m.state().phase().isFinal()
                    && m.state().phase() != dev.sendlog.projections.Phase.UNKNOWN) {
                // Matched only by a provider id that wraps, to a message already final: the receipt may be for a newer
                // use of the id whose acceptance is not visible yet. Hold it rather than pin it on the wrong message.
                return holdOrPark(inboxId, gateway, receivedAt, "ambiguous", "provider id " + cb.providerId()
                        + " was last used by message " + m.row().id() + ", which is already final", m.row().id());
            }
            switch (decision) {
                case HOLD -> {
                    return holdOrPark(inboxId, gateway, receivedAt, "unmatched",
                            "message " + m.row().id() + " has no provider acceptance recorded", m.row().id());
                }
                case DUPLICATE -> {
                    recorder.record(new CallbackDecision.Duplicate(inboxId, m.row().id()));
                    duplicates.inc();
                    return true;
                }
                case APPEND -> {
                    NewEvent event = new NewEvent(m.row().id(), m.state().nextSeq(), Shards.of(m.row().id(), shardCount), actor,
                            clock.instant(), receipt);
                    if (recorder.record(new CallbackDecision.AppendReceipt(inboxId, event))) {
                        appended.inc();
                        boolean wasFinal = m.state().phase() == dev.sendlog.projections.Phase.DELIVERED
                                || m.state().phase() == dev.sendlog.projections.Phase.UNDELIVERED;
                        if (!wasFinal && cb.kind().isFinal()) {
                            metrics.counter(cb.kind() == dev.sendlog.events.ReceiptKind.DELIVERED
                                    ? "messages.delivered" : "messages.undelivered").inc();
                        }
                        return true;
                    }
                }
            }
        }
        LOG.warn("callback inbox_id={} lost {} races in a row; left for the sweeper", inboxId, MAX_DECISIONS);
        return true;
    }

    private boolean holdOrPark(long inboxId, String gateway, Instant receivedAt, String kind, String reason, UUID messageId)
            throws Exception {
        if (receivedAt.plus(holdWindow).isAfter(clock.instant())) {
            held.inc();
            return true;
        }
        return park(inboxId, gateway, kind, reason + " within " + holdWindow.toSeconds() + " s", messageId);
    }

    private boolean park(long inboxId, String gateway, String kind, String reason, UUID messageId) throws Exception {
        recorder.record(new CallbackDecision.Park(inboxId, gateway, kind, reason, messageId));
        metrics.counter("callbacks.parked." + kind).inc();
        LOG.warn("callback parked inbox_id={} gateway={} message_id={} reason=\"{}\"", inboxId, gateway, messageId, reason);
        return true;
    }

    private static String kindOf(String reason) {
        if (reason.startsWith("body is not")) {
            return "not-json";
        }
        if (reason.startsWith("missing")) {
            return "missing-field";
        }
        if (reason.startsWith("unmapped")) {
            return "unmapped-status";
        }
        if (reason.startsWith("unparseable")) {
            return "bad-timestamp";
        }
        return "other";
    }
}
