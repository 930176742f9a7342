package dev.sendlog.service.receipts;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import dev.sendlog.service.queue.JobStream;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Queues again the inbox rows that have no outcome yet: receipts held for a late match, and callbacks stored
 * while Redis could not take their job. Scans from a low-water mark (the oldest row still without an outcome),
 * so its cost follows the open rows, not the whole inbox. A row is queued again only when it was open at the
 * previous sweep too, so one just stored (and queued by the intake) is left to its first delivery.
 */
public final class InboxSweeper implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(InboxSweeper.class);
    private static final int BATCH = 1000;

    private final DSLContext dsl;
    private final JobStream stream;
    private final Counter requeued;
    private long lowWater = -1;
    private Set<Long> previous = Set.of();

    public InboxSweeper(DSLContext dsl, JobStream stream, MetricRegistry metrics) {
        this.dsl = dsl;
        this.stream = stream;
        this.requeued = metrics.counter("callbacks.requeued");
    }

    /**
     * Queues again the rows that were already open at the previous sweep and still are (so each has waited at
     * least one sweep interval, measured on the scheduler, not on any clock in the rows); returns how many.
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
                        ORDER BY i.id LIMIT ?""", lowWater, BATCH)
                .getValues(0, Long.class);
        if (open.isEmpty()) {
            // Ids are taken at insert and commit in any order: the mark only passes rows old enough that no
            // transaction still holding an earlier id can be open (a writer's transaction lasts milliseconds).
            Long max = dsl.fetchValue(DSL.field(
                    "(SELECT max(id) FROM callback_inbox WHERE received_at <= now() - interval '5 minutes')", Long.class));
            if (max != null) {
                lowWater = Math.max(lowWater, max + 1);
            }
            previous = Set.of();
            return 0;
        }
        lowWater = open.getFirst();
        List<Long> again = open.stream().filter(previous::contains).toList();
        previous = new HashSet<>(open);
        if (!again.isEmpty()) {
            stream.publish(again.stream().map(id -> new CallbackJob(id).toFields()).toList());
            requeued.inc(again.size());
        }
        return again.size();
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
