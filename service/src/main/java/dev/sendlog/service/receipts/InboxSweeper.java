package dev.sendlog.service.receipts;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import dev.sendlog.service.queue.JobStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Queues again the inbox rows that have no outcome yet: receipts held for a late match, and callbacks stored
 * while Redis could not take their job. Scans from a low-water mark (the oldest row still without an outcome),
 * so its cost follows the open rows, not the whole inbox. A row is queued again only when it was open at the
 * previous sweep too, so one just stored (and queued by the intake) is left to its first delivery.
 *
 * <p>Re-queuing must not feed on a backlog. A row still waiting behind a long queue is open at every sweep; queuing
 * it again at each one would put ever more duplicates in front of the workers exactly when they are behind (a
 * chaos run showed 35,000 re-queues for 7,000 callbacks). So a row is queued again after 2, 4, 8, 16 and then every
 * 32 sweeps it has stayed open, and not at all while the stream holds more entries than one sweep's batch: those
 * rows' jobs are most likely in it, and the sweep after the backlog drains picks up any that are not.
 */
public final class InboxSweeper implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(InboxSweeper.class);
    private static final int BATCH = 1000;

    private final DSLContext dsl;
    private final JobStream stream;
    private final Counter requeued;
    private final Counter deferred;
    private long lowWater = -1;
    /** How many sweeps in a row each open row has been seen open. */
    private Map<Long, Integer> sweepsOpen = Map.of();

    public InboxSweeper(DSLContext dsl, JobStream stream, MetricRegistry metrics) {
        this.dsl = dsl;
        this.stream = stream;
        this.requeued = metrics.counter("callbacks.requeued");
        this.deferred = metrics.counter("callbacks.requeue.deferred.backlog");
    }

    /**
     * Queues again the open rows that are due (each has waited at least one sweep interval, measured on the
     * scheduler, not on any clock in the rows; see the class comment for the back-off); returns how many.
     */
    public synchronized int sweep() {
        if (lowWater < 0) {
            Long first = dsl.fetchValue(DSL.field(
                    "(SELECT min(id) FROM callback_inbox WHERE received_at > now() - interval '7 days')", Long.class));
            lowWater = first == null ? 0 : first;
        }
        List<Long> open = dsl.fetch("""
                        SELECT i.id FROM callback_inbox i
                        WHERE i.id >= ? AND NOT EXISTS (SELECT 1 FROM callback_outcomes o WHERE o.inbox_id = i.id)
                        ORDER BY i.id LIMIT ?""", lowWater, BATCH).getValues(0, Long.class);
        if (open.isEmpty()) {
            // Ids are taken at insert and commit in any order: the mark only passes rows old enough that no
            // transaction still holding an earlier id can be open (a writer's transaction lasts milliseconds).
            Long max = dsl.fetchValue(DSL.field(
                    "(SELECT max(id) FROM callback_inbox WHERE received_at <= now() - interval '5 minutes')",
                    Long.class));
            if (max != null) {
                lowWater = Math.max(lowWater, max + 1);
            }
            sweepsOpen = Map.of();
            return 0;
        }
        lowWater = open.getFirst();
        Map<Long, Integer> seen = new HashMap<>();
        List<Long> again = new ArrayList<>();
        for (Long id : open) {
            int n = sweepsOpen.getOrDefault(id, 0) + 1;
            seen.put(id, n);
            if (due(n)) {
                again.add(id);
            }
        }
        sweepsOpen = seen;
        if (again.isEmpty()) {
            return 0;
        }
        if (stream.length() > BATCH) {
            deferred.inc(again.size());
            return 0;
        }
        stream.publish(again.stream().map(id -> new CallbackJob(id).toFields()).toList());
        requeued.inc(again.size());
        return again.size();
    }

    /** Whether a row open for {@code sweeps} sweeps in a row is queued again now: 2, 4, 8, 16, then every 32. */
    static boolean due(int sweeps) {
        return sweeps >= 2 && (sweeps % 32 == 0 || (sweeps <= 16 && Integer.bitCount(sweeps) == 1));
    }

    @Override
    public void run() {
        try {
            sweep();
        } catch (RuntimeException e) {
            LOG.warn("sweeping the callback inbox failed: {}", e.toString());
        }
    }
}
