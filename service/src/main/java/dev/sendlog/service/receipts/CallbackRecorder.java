package dev.sendlog.service.receipts;

import com.codahale.metrics.MetricRegistry;
import dev.sendlog.service.log.AppendKey;
import dev.sendlog.service.log.EventStore;
import dev.sendlog.service.log.GroupCommit;
import dev.sendlog.service.log.NewEvent;
import dev.sendlog.service.stats.Tallies;
import io.dropwizard.lifecycle.Managed;
import java.sql.PreparedStatement;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jooq.DSLContext;

/**
 * Records callback decisions in group commits: the RECEIPT events, the outcome of every inbox row, and the parked
 * rows, in one transaction. An outcome is written once per inbox row (a second decision for the same row, from a
 * duplicate delivery, changes nothing), and a row is parked only together with its outcome.
 */
public final class CallbackRecorder implements Managed {
    private static final String OUTCOMES_SQL = """
            WITH o AS (
                INSERT INTO callback_outcomes (inbox_id, outcome, message_id, event_seq, decided_at)
                SELECT i, k, m, s, ?::timestamptz FROM unnest(?::int8[], ?::text[], ?::uuid[], ?::int4[]) AS x(i, k, m, s)
                ON CONFLICT (inbox_id) DO NOTHING
                RETURNING inbox_id, outcome
            )
            INSERT INTO parked_input (inbox_id, gateway, reason, message_id, parked_at)
            SELECT p.i, p.g, p.r, p.m, ?::timestamptz
            FROM unnest(?::int8[], ?::text[], ?::text[], ?::uuid[]) AS p(i, g, r, m)
            JOIN o ON o.inbox_id = p.i AND o.outcome = 'parked'
            RETURNING gateway""";

    private static final int MAX_REWRITES = 5;

    private final DSLContext dsl;
    private final EventStore store;
    private final InstantSource clock;
    private final GroupCommit<RecordItem> commits;
    private final Tallies tallies;

    public CallbackRecorder(
            DSLContext dsl, EventStore store, InstantSource clock, int writers, MetricRegistry metrics) {
        this(dsl, store, clock, writers, metrics, Tallies.DISABLED);
    }

    /** {@code tallies} counts the status changes and the parked rows committed (the console's pipeline view). */
    public CallbackRecorder(
            DSLContext dsl,
            EventStore store,
            InstantSource clock,
            int writers,
            MetricRegistry metrics,
            Tallies tallies) {
        this.tallies = tallies;
        this.dsl = dsl;
        this.store = store;
        this.clock = clock;
        this.commits = new GroupCommit<>("callbacks.record", this::write, writers, 1000, 0, 100_000, metrics);
    }

    /**
     * Records several decisions (for different inbox rows and different messages) and waits for all of them; the
     * answers are in the same order, false for an append that lost its seq. They usually share one transaction.
     */
    public List<Boolean> recordAll(List<CallbackDecision> decisions)
            throws InterruptedException, ExecutionException, TimeoutException {
        List<RecordItem> items = new ArrayList<>(decisions.size());
        for (CallbackDecision decision : decisions) {
            RecordItem item = new RecordItem(decision);
            if (!commits.offer(item)) {
                throw new IllegalStateException("the callback record queue is full or stopped");
            }
            items.add(item);
        }
        List<Boolean> results = new ArrayList<>(items.size());
        for (RecordItem item : items) {
            results.add(item.done().get(30, TimeUnit.SECONDS));
        }
        return results;
    }

    private void write(List<RecordItem> batch) {
        Set<AppendKey> lost = new HashSet<>();
        for (int round = 0; ; round++) {
            try {
                Set<AppendKey> skip = Set.copyOf(lost);
                Written written = dsl.transactionResult(cfg -> writeInTransaction(cfg.dsl(), batch, skip));
                written.results().forEach((item, ok) -> item.done().complete(ok));
                tallies.committed(written.appended());
                written.parkedGateways().forEach(g -> tallies.add(Tallies.Kind.PARKED, g, null, 1));
                return;
            } catch (RuntimeException e) {
                if (round < MAX_REWRITES && EventStore.isSeqTaken(e)) {
                    // Another writer took a receipt's seq: the transaction is lost; write again without that receipt.
                    List<AppendKey> keys = new ArrayList<>();
                    for (RecordItem item : batch) {
                        if (item.decision() instanceof CallbackDecision.AppendReceipt a) {
                            keys.add(a.event().key());
                        }
                    }
                    lost.addAll(store.taken(dsl, keys));
                    continue;
                }
                batch.forEach(item -> item.done().completeExceptionally(e));
                return;
            }
        }
    }

    /** What a transaction wrote: each item's answer, the receipts appended, the gateway of each row parked. */
    private record Written(Map<RecordItem, Boolean> results, List<NewEvent> appended, List<String> parkedGateways) {}

    private Written writeInTransaction(DSLContext tx, List<RecordItem> batch, Set<AppendKey> lost) {
        List<NewEvent> events = new ArrayList<>();
        for (RecordItem item : batch) {
            if (item.decision() instanceof CallbackDecision.AppendReceipt a
                    && !lost.contains(a.event().key())) {
                events.add(a.event());
            }
        }
        store.append(tx, events);
        Map<RecordItem, Boolean> results = new HashMap<>();
        List<Long> inbox = new ArrayList<>();
        List<String> kinds = new ArrayList<>();
        List<UUID> messages = new ArrayList<>();
        List<Integer> seqs = new ArrayList<>();
        List<Long> parkInbox = new ArrayList<>();
        List<String> parkGateway = new ArrayList<>();
        List<String> parkReason = new ArrayList<>();
        List<UUID> parkMessage = new ArrayList<>();
        for (RecordItem item : batch) {
            switch (item.decision()) {
                case CallbackDecision.AppendReceipt a -> {
                    boolean ok = !lost.contains(a.event().key());
                    results.put(item, ok);
                    if (ok) {
                        inbox.add(a.inboxId());
                        kinds.add("appended");
                        messages.add(a.event().messageId());
                        seqs.add(a.event().seq());
                    }
                }
                case CallbackDecision.Park p -> {
                    results.put(item, true);
                    inbox.add(p.inboxId());
                    kinds.add("parked");
                    messages.add(p.messageId());
                    seqs.add(null);
                    parkInbox.add(p.inboxId());
                    parkGateway.add(p.gateway());
                    parkReason.add(p.reason().text());
                    parkMessage.add(p.messageId());
                }
                case CallbackDecision.Duplicate d -> {
                    results.put(item, true);
                    inbox.add(d.inboxId());
                    kinds.add("duplicate");
                    messages.add(d.messageId());
                    seqs.add(null);
                }
            }
        }
        List<String> parked = new ArrayList<>();
        if (!inbox.isEmpty()) {
            String now = Instant.from(clock.instant()).toString();
            tx.connection(c -> {
                try (PreparedStatement ps = c.prepareStatement(OUTCOMES_SQL)) {
                    ps.setString(1, now);
                    ps.setArray(2, c.createArrayOf("int8", inbox.toArray(Long[]::new)));
                    ps.setArray(3, c.createArrayOf("text", kinds.toArray(String[]::new)));
                    ps.setArray(4, c.createArrayOf("uuid", messages.toArray(UUID[]::new)));
                    ps.setArray(5, c.createArrayOf("int4", seqs.toArray(Integer[]::new)));
                    ps.setString(6, now);
                    ps.setArray(7, c.createArrayOf("int8", parkInbox.toArray(Long[]::new)));
                    ps.setArray(8, c.createArrayOf("text", parkGateway.toArray(String[]::new)));
                    ps.setArray(9, c.createArrayOf("text", parkReason.toArray(String[]::new)));
                    ps.setArray(10, c.createArrayOf("uuid", parkMessage.toArray(UUID[]::new)));
                    try (java.sql.ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            parked.add(rs.getString(1));
                        }
                    }
                }
            });
        }
        return new Written(results, events, parked);
    }

    @Override
    public void start() {
        commits.start();
    }

    @Override
    public void stop() throws InterruptedException {
        commits.stop();
    }
}
