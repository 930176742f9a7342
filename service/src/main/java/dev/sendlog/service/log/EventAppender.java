package dev.sendlog.service.log;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import dev.sendlog.events.ProviderAccepted;
import dev.sendlog.service.stats.Tallies;
import io.dropwizard.lifecycle.Managed;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.jooq.DSLContext;
import org.postgresql.util.PSQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pipeline's appends (claims, results, timers), gathered into group commits. A provider acceptance is written with
 * its ledger charge in the same transaction, and only when the event won its seq. The charge's key comes from
 * {@link EffectKeys#charge}, whatever path records the acceptance, so the ledger's primary key holds one charge per
 * message.
 *
 * <p>Appends are plain INSERTs: when one of a group's seqs turns out taken, the transaction is lost; the appender reads
 * which seqs are taken and writes the group again without them (their requests learn they lost).
 */
public final class EventAppender implements Managed {
    private static final Logger LOG = LoggerFactory.getLogger(EventAppender.class);
    private static final long WAIT_MS = 30_000;
    private static final int MAX_REWRITES = 5;
    private static final String UNIQUE_VIOLATION = "23505";

    private static final String CHARGE_SQL = """
            INSERT INTO ledger (effect_key, units, charged_at)
            SELECT k, u, a::timestamptz FROM unnest(?::uuid[], ?::int4[], ?::text[]) AS x(k, u, a)""";
    /** Only after a refused charge: keep the ones that are new, count the rest. */
    private static final String CHARGE_NEW_SQL = CHARGE_SQL + " ON CONFLICT (effect_key) DO NOTHING";

    private static final String WAKE_SQL = """
            UPDATE publications p SET check_at = w.at::timestamptz
            FROM unnest(?::int8[], ?::text[]) AS w(id, at)
            WHERE p.id = w.id AND (p.check_at IS NULL OR p.check_at > w.at::timestamptz)""";

    private final DSLContext dsl;
    private final EventStore store;
    private final GroupCommit<AppendRequest> commits;
    private final Counter duplicateCharges;
    private final Counter rewrites;
    private final Tallies tallies;

    public EventAppender(DSLContext dsl, EventStore store, int writers, MetricRegistry metrics, String name) {
        this(dsl, store, writers, metrics, name, Tallies.DISABLED);
    }

    /** {@code tallies} counts the status changes committed (the console's pipeline view). */
    public EventAppender(
            DSLContext dsl, EventStore store, int writers, MetricRegistry metrics, String name, Tallies tallies) {
        this.tallies = tallies;
        this.dsl = dsl;
        this.store = store;
        this.commits = new GroupCommit<>(name, this::write, writers, 1000, 0, 100_000, metrics);
        this.duplicateCharges = metrics.counter("ledger.duplicates.refused");
        this.rewrites = metrics.counter(name + ".rewrites.after.lost.seq");
    }

    /** Appends and waits for the commit; returns the events that won their seq. Throws {@link AppendFailedException}. */
    public Set<AppendKey> append(List<NewEvent> events, Charge charge) {
        return append(events, charge, null);
    }

    /** As {@link #append(List, Charge)}, bringing a publication's next check forward with it. */
    public Set<AppendKey> append(List<NewEvent> events, Charge charge, PublicationWake wake) {
        AppendRequest request = new AppendRequest(events, charge, wake);
        if (!commits.offer(request)) {
            throw new AppendFailedException("the append queue is full or stopped", null);
        }
        try {
            return BoundedWait.get(request.result(), Duration.ofMillis(WAIT_MS));
        } catch (ExecutionException e) {
            throw e.getCause() instanceof AppendFailedException a
                    ? a
                    : new AppendFailedException("append failed", e.getCause());
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
        Set<AppendKey> lost = new HashSet<>();
        boolean chargeNewOnly = false;
        for (int round = 0; ; round++) {
            try {
                Set<AppendKey> skip = Set.copyOf(lost);
                boolean newOnly = chargeNewOnly;
                Map<AppendRequest, Set<AppendKey>> results =
                        dsl.transactionResult(cfg -> writeInTransaction(cfg.dsl(), batch, skip, newOnly));
                results.forEach((r, keys) -> r.result().complete(keys));
                if (tallies.enabled()) {
                    List<NewEvent> won = new ArrayList<>();
                    results.forEach((r, keys) -> r.events().stream()
                            .filter(e -> keys.contains(e.key()))
                            .forEach(won::add));
                    tallies.committed(won);
                }
                return;
            } catch (RuntimeException e) {
                if (round < MAX_REWRITES && EventStore.isSeqTaken(e)) {
                    rewrites.inc();
                    List<AppendKey> keys = new ArrayList<>();
                    batch.forEach(r -> r.events().forEach(ev -> keys.add(ev.key())));
                    lost.addAll(store.taken(dsl, keys));
                    continue;
                }
                if (round < MAX_REWRITES && !chargeNewOnly && isLedgerConflict(e)) {
                    chargeNewOnly = true;
                    continue;
                }
                LOG.warn("append failed requests={} error=\"{}\"", batch.size(), e.toString());
                batch.forEach(
                        r -> r.result().completeExceptionally(new AppendFailedException("append failed: " + e, e)));
                return;
            }
        }
    }

    private Map<AppendRequest, Set<AppendKey>> writeInTransaction(
            DSLContext tx, List<AppendRequest> batch, Set<AppendKey> lost, boolean chargeNewOnly) {
        // Of two events for one seq in the group, the first wins: the second lost its race as if written after it. A
        // request's events for one message (the parts of a concatenated message's acceptance) win or lose together:
        // one lost seq loses them all, so a later part is never written without the parts before it.
        Set<AppendKey> taken = new HashSet<>(lost);
        List<NewEvent> all = new ArrayList<>();
        Set<NewEvent> written = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (AppendRequest r : batch) {
            Map<UUID, List<NewEvent>> byMessage = new java.util.LinkedHashMap<>();
            r.events()
                    .forEach(e -> byMessage
                            .computeIfAbsent(e.messageId(), m -> new ArrayList<>())
                            .add(e));
            for (List<NewEvent> together : byMessage.values()) {
                if (together.stream().anyMatch(e -> taken.contains(e.key()))) {
                    continue;
                }
                for (NewEvent e : together) {
                    taken.add(e.key());
                    all.add(e);
                    written.add(e);
                }
            }
        }
        store.append(tx, all);
        List<Charge> charges = new ArrayList<>();
        List<PublicationWake> wakes = new ArrayList<>();
        Map<AppendRequest, Set<AppendKey>> results = new HashMap<>();
        for (AppendRequest r : batch) {
            Set<AppendKey> mine = new HashSet<>();
            for (NewEvent e : r.events()) {
                if (written.contains(e)) {
                    mine.add(e.key());
                    if (r.charge() != null && e.event() instanceof ProviderAccepted pa && pa.part() == 1) {
                        charges.add(r.charge());
                    }
                }
            }
            if (r.wake() != null && !mine.isEmpty()) {
                wakes.add(r.wake());
            }
            results.put(r, mine);
        }
        if (!charges.isEmpty()) {
            charge(tx, charges, chargeNewOnly);
        }
        if (!wakes.isEmpty()) {
            wake(tx, wakes);
        }
        return results;
    }

    private void charge(DSLContext tx, List<Charge> charges, boolean newOnly) {
        int n = charges.size();
        UUID[] keys = new UUID[n];
        Integer[] units = new Integer[n];
        String[] at = new String[n];
        for (int i = 0; i < n; i++) {
            Charge c = charges.get(i);
            keys[i] = EffectKeys.charge(c.messageId());
            units[i] = c.units();
            at[i] = c.at().toString();
        }
        int charged = tx.connectionResult(c -> {
            try (PreparedStatement ps = c.prepareStatement(newOnly ? CHARGE_NEW_SQL : CHARGE_SQL)) {
                ps.setArray(1, c.createArrayOf("uuid", keys));
                ps.setArray(2, c.createArrayOf("int4", units));
                ps.setArray(3, c.createArrayOf("text", at));
                return ps.executeUpdate();
            }
        });
        if (charged != n) {
            // The event won its seq, so this message had no acceptance yet; a charge already there means a path wrote
            // the ledger without the event. Refused by the key, counted, and loud.
            duplicateCharges.inc(n - charged);
            LOG.error("ledger refused {} duplicate charges of {}", n - charged, n);
        }
    }

    private static void wake(DSLContext tx, List<PublicationWake> wakes) {
        Long[] ids = wakes.stream().map(PublicationWake::publication).toArray(Long[]::new);
        String[] at = wakes.stream().map(w -> w.at().toString()).toArray(String[]::new);
        tx.connection(c -> {
            try (PreparedStatement ps = c.prepareStatement(WAKE_SQL)) {
                ps.setArray(1, c.createArrayOf("int8", ids));
                ps.setArray(2, c.createArrayOf("text", at));
                ps.executeUpdate();
            }
        });
    }

    /** A unique violation on the ledger's key: a charge that is already there. */
    private static boolean isLedgerConflict(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof PSQLException p
                    && UNIQUE_VIOLATION.equals(p.getSQLState())
                    && p.getServerErrorMessage() != null
                    && String.valueOf(p.getServerErrorMessage().getConstraint()).startsWith("ledger")) {
                return true;
            }
        }
        return false;
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
