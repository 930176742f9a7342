package dev.sendlog.service.dispatch;

import static dev.sendlog.schema.jooq.Tables.LEDGER;
import static dev.sendlog.schema.jooq.Tables.PROVIDER_REFS;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import dev.sendlog.events.ProviderAccepted;
import dev.sendlog.service.core.EffectKeys;
import dev.sendlog.service.core.GroupCommit;
import dev.sendlog.service.db.AppendKey;
import dev.sendlog.service.db.EventStore;
import dev.sendlog.service.db.NewEvent;
import io.dropwizard.lifecycle.Managed;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pipeline's appends (claims, results, timers, receipts), gathered into group commits. A provider
 * acceptance is written with its ledger charge and provider reference in the same transaction, and only
 * when the event won its seq. The charge's key comes from {@link EffectKeys#charge}, whatever path
 * records the acceptance, so the ledger's primary key holds one charge per message.
 */
public final class EventAppender implements Managed {
    private static final Logger LOG = LoggerFactory.getLogger(EventAppender.class);
    private static final long WAIT_MS = 30_000;

    private final DSLContext dsl;
    private final EventStore store;
    private final GroupCommit<AppendRequest> commits;
    private final Counter duplicateCharges;

    public EventAppender(DSLContext dsl, EventStore store, int writers, MetricRegistry metrics, String name) {
        this.dsl = dsl;
        this.store = store;
        this.commits = new GroupCommit<>(name, this::write, writers, 1000, 0, 100_000, metrics);
        this.duplicateCharges = metrics.counter("ledger.duplicates.refused");
    }

    /** Appends and waits for the commit; returns the events that won their seq. Throws {@link AppendFailedException}. */
    public Set<AppendKey> append(List<NewEvent> events, Charge charge) {
        AppendRequest request = new AppendRequest(events, charge);
        if (!commits.offer(request)) {
            throw new AppendFailedException("the append queue is full or stopped", null);
        }
        try {
            return request.result().get(WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof AppendFailedException a ? a : new AppendFailedException("append failed", e.getCause());
        } catch (TimeoutException e) {
            throw new AppendFailedException("the append did not commit within " + WAIT_MS + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AppendFailedException("interrupted", e);
        }
    }

    /** Appends one event; true when it won its seq. */
    public boolean appendOne(NewEvent event) {
        return !append(List.of(event), null).isEmpty();
    }

    private void write(List<AppendRequest> batch) {
        try {
            Map<AppendRequest, Set<AppendKey>> results = dsl.transactionResult(cfg -> writeInTransaction(cfg.dsl(), batch));
            results.forEach((r, keys) -> r.result().complete(keys));
        } catch (RuntimeException e) {
            LOG.warn("append failed requests={} error=\"{}\"", batch.size(), e.toString());
            batch.forEach(r -> r.result().completeExceptionally(new AppendFailedException("append failed: " + e, e)));
        }
    }

    private Map<AppendRequest, Set<AppendKey>> writeInTransaction(DSLContext tx, List<AppendRequest> batch) {
        List<NewEvent> all = new ArrayList<>();
        batch.forEach(r -> all.addAll(r.events()));
        Set<AppendKey> won = store.append(tx, all);
        List<Charge> charges = new ArrayList<>();
        Map<AppendRequest, Set<AppendKey>> results = new HashMap<>();
        for (AppendRequest r : batch) {
            Set<AppendKey> mine = new HashSet<>();
            for (NewEvent e : r.events()) {
                AppendKey key = new AppendKey(e.messageId(), e.seq());
                if (won.contains(key)) {
                    mine.add(key);
                    if (r.charge() != null && e.event() instanceof ProviderAccepted) {
                        charges.add(r.charge());
                    }
                }
            }
            results.put(r, mine);
        }
        if (!charges.isEmpty()) {
            charge(tx, charges);
        }
        return results;
    }

    private void charge(DSLContext tx, List<Charge> charges) {
        var ledger = tx.insertInto(LEDGER, LEDGER.EFFECT_KEY, LEDGER.MESSAGE_ID, LEDGER.TENANT, LEDGER.GATEWAY,
                LEDGER.PROVIDER_ID, LEDGER.UNITS, LEDGER.CHARGED_AT);
        var refs = tx.insertInto(PROVIDER_REFS, PROVIDER_REFS.GATEWAY, PROVIDER_REFS.PROVIDER_ID, PROVIDER_REFS.MESSAGE_ID,
                PROVIDER_REFS.ACCEPTED_AT);
        for (Charge c : charges) {
            ledger = ledger.values(EffectKeys.charge(c.messageId()), c.messageId(), c.tenant(), c.gateway(), c.providerId(),
                    c.units(), c.at());
            refs = refs.values(c.gateway(), c.providerId(), c.messageId(), c.at());
        }
        int charged = ledger.onConflictDoNothing().execute();
        if (charged != charges.size()) {
            // The event won its seq, so this message had no acceptance yet; a charge already there means a
            // path wrote the ledger without the event. Refused by the key, counted, and loud.
            duplicateCharges.inc(charges.size() - charged);
            LOG.error("ledger refused {} duplicate charges of {}", charges.size() - charged, charges.size());
        }
        refs.execute();
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
