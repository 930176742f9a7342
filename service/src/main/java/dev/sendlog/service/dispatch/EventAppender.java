package dev.sendlog.service.dispatch;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import dev.sendlog.events.ProviderAccepted;
import dev.sendlog.service.core.EffectKeys;
import dev.sendlog.service.core.GroupCommit;
import dev.sendlog.service.db.AppendKey;
import dev.sendlog.service.db.EventStore;
import dev.sendlog.service.db.NewEvent;
import io.dropwizard.lifecycle.Managed;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
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

    private static final String CHARGE_SQL = """
            WITH charged AS (
                INSERT INTO ledger (effect_key, message_id, tenant, gateway, provider_id, units, charged_at)
                SELECT k, m, t, g, p, u, a::timestamptz
                FROM unnest(?::text[], ?::uuid[], ?::text[], ?::text[], ?::text[], ?::int4[], ?::text[]) AS x(k, m, t, g, p, u, a)
                ON CONFLICT (effect_key) DO NOTHING
                RETURNING 1
            ), refs AS (
                INSERT INTO provider_refs (gateway, provider_id, message_id, accepted_at)
                SELECT g, p, m, a::timestamptz
                FROM unnest(?::text[], ?::text[], ?::uuid[], ?::text[]) AS y(g, p, m, a)
            )
            SELECT count(*) FROM charged""";

    private void charge(DSLContext tx, List<Charge> charges) {
        int n = charges.size();
        String[] keys = new String[n];
        UUID[] ids = new UUID[n];
        String[] tenants = new String[n];
        String[] gateways = new String[n];
        String[] providerIds = new String[n];
        Integer[] units = new Integer[n];
        String[] at = new String[n];
        for (int i = 0; i < n; i++) {
            Charge c = charges.get(i);
            keys[i] = EffectKeys.charge(c.messageId());
            ids[i] = c.messageId();
            tenants[i] = c.tenant();
            gateways[i] = c.gateway();
            providerIds[i] = c.providerId();
            units[i] = c.units();
            at[i] = c.at().toString();
        }
        int charged = tx.connectionResult(c -> {
            try (PreparedStatement ps = c.prepareStatement(CHARGE_SQL)) {
                ps.setArray(1, c.createArrayOf("text", keys));
                ps.setArray(2, c.createArrayOf("uuid", ids));
                ps.setArray(3, c.createArrayOf("text", tenants));
                ps.setArray(4, c.createArrayOf("text", gateways));
                ps.setArray(5, c.createArrayOf("text", providerIds));
                ps.setArray(6, c.createArrayOf("int4", units));
                ps.setArray(7, c.createArrayOf("text", at));
                ps.setArray(8, c.createArrayOf("text", gateways));
                ps.setArray(9, c.createArrayOf("text", providerIds));
                ps.setArray(10, c.createArrayOf("uuid", ids));
                ps.setArray(11, c.createArrayOf("text", at));
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getInt(1);
                }
            }
        });
        if (charged != n) {
            // The event won its seq, so this message had no acceptance yet; a charge already there means a
            // path wrote the ledger without the event. Refused by the key, counted, and loud.
            duplicateCharges.inc(n - charged);
            LOG.error("ledger refused {} duplicate charges of {}", n - charged, n);
        }
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
